// Package proxyaddr holds where the egress proxy listens inside a filtered
// sandbox, shared by the runtimes and the library.
package proxyaddr

// Port is the loopback port of the egress proxy inside every filtered
// sandbox (each has its own network namespace, so one port serves all).
const Port = 3128
