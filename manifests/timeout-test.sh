#!/bin/sh
# A stand-in agent for manifests/timeout-test.yaml: it prints a tick every
# second for about 60 seconds. Under the manifest's 5s duration limit,
# agentbox kills it after the fifth tick or so.
i=1
while [ "$i" -le 60 ]; do
	echo "tick $i"
	i=$((i + 1))
	sleep 1
done
echo "timeout-test: finished after 60 s (the duration limit did not fire)"
