package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// lineResult is what a worker learns from one line.
type lineResult struct {
	id     uint64
	hash   string // as written
	prev   string // as written
	hashOK bool   // the content hashes to hash
	err    error  // not a valid entry
	size   int    // bytes, without the newline
	// unterminated marks the last line of the file when it lacks its
	// newline.
	unterminated bool
	// witness is set for an alert in which a writer recorded what the
	// chain cannot show (see witness.go).
	witness *witness
}

// scanJob is a block of whole lines, checked by one worker.
type scanJob struct {
	lines        [][]byte
	unterminated bool
	out          chan []lineResult
}

// scanLines reads r and calls fn with the result of every line, in order.
// Parsing and hashing run on workers in parallel; fn runs on the calling
// goroutine. fn returning false stops the scan early.
func scanLines(r io.Reader, workers int, fn func(lineResult) bool) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *scanJob, workers)
	ordered := make(chan *scanJob, 2*workers)
	stop := make(chan struct{})
	var readErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc lineScratch
			for j := range jobs {
				res := make([]lineResult, len(j.lines))
				for i, line := range j.lines {
					res[i] = sc.check(line)
				}
				if j.unterminated {
					res[len(res)-1].unterminated = true
				}
				j.out <- res
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		readErr = readBlocks(r, func(j *scanJob) bool {
			select {
			case ordered <- j:
			case <-stop:
				return false
			}
			jobs <- j
			return true
		})
	}()
	stopped := false
	for j := range ordered {
		if stopped {
			continue
		}
		for _, lr := range <-j.out {
			if !fn(lr) {
				stopped = true
				close(stop)
				break
			}
		}
	}
	wg.Wait()
	return readErr
}

// readBlocks splits r into jobs of whole lines.
func readBlocks(r io.Reader, send func(*scanJob) bool) error {
	const block = 1 << 20
	var carry []byte
	for {
		buf := make([]byte, len(carry), max(block, 2*len(carry)))
		copy(buf, carry)
		n, err := io.ReadFull(r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("audit: read: %w", err)
		}
		last := bytes.LastIndexByte(buf, '\n')
		complete := buf[:last+1]
		carry = buf[last+1:]
		if eof && len(carry) > 0 {
			complete, carry = buf, nil
		}
		if len(complete) > 0 {
			j := &scanJob{out: make(chan []lineResult, 1)}
			for len(complete) > 0 {
				line, rest, found := bytes.Cut(complete, []byte{'\n'})
				j.lines = append(j.lines, line)
				complete = rest
				j.unterminated = !found
			}
			if !send(j) {
				return nil
			}
		}
		if eof {
			return nil
		}
		if len(carry) > 2*MaxEntryBytes {
			return fmt.Errorf("%w: a line is longer than %d bytes", ErrCorrupt, MaxEntryBytes)
		}
	}
}

// lineScratch holds buffers one worker reuses from line to line.
type lineScratch struct {
	top  []member
	hbuf []byte
}

func (sc *lineScratch) check(line []byte) lineResult {
	lr := lineResult{size: len(line)}
	if sc.top == nil {
		sc.top = make([]member, 0, 16)
	}
	v, err := parseObjectInto(line, sc.top)
	if err != nil {
		lr.err = err
		return lr
	}
	if cap(v.obj) > cap(sc.top) {
		sc.top = v.obj[:0]
	}
	pe, err := entryFields(v)
	if err != nil {
		lr.err = err
		return lr
	}
	lr.id, lr.hash, lr.prev = pe.id, pe.hash, pe.prev
	var sum [32]byte
	sum, sc.hbuf = entrySum(pe.obj, sc.hbuf)
	lr.hashOK = hashMatches(sum, pe.hash)
	lr.witness = witnessOf(v)
	clear(v.obj) // drop references into this line's strings
	return lr
}
