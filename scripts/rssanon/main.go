// Command rssanon runs a command and reports the peak anonymous resident memory (RssAnon
// in /proc/PID/status) of the largest process of its tree, sampled while it runs. It is the
// benchmarks' second memory figure, next to GNU time's peak RSS (%M): the peak RSS counts
// the pages of the binary's own file (code, read-only data) that the process touched, which
// depend on how the kernel caches and maps that file; RssAnon is the memory the program
// itself allocated (heap, stacks, buffers).
//
// Usage: rssanon COMMAND [ARG...]
//
// It prints "rssanon KB" as the last line of stderr and exits with the command's status.
// The kernel keeps no peak of RssAnon, so it is sampled (every millisecond): a process that
// lives less than that may show less than its peak, or 0.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const interval = time.Millisecond

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rssanon COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rssanon:", err)
		os.Exit(127)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var err error
wait:
	for {
		peak = max(peak, treePeak(cmd.Process.Pid))
		select {
		case err = <-done:
			break wait
		case <-tick.C:
		}
	}
	fmt.Fprintf(os.Stderr, "rssanon %d\n", peak)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(max(exit.ExitCode(), 1))
	}
}

// treePeak is the largest RssAnon (KB) among pid and its descendants.
func treePeak(pid int) int64 {
	peak := rssAnon(pid)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(f); err == nil {
				peak = max(peak, treePeak(child))
			}
		}
	}
	return peak
}

// rssAnon is the RssAnon (KB) of pid, 0 when it cannot be read (the process has ended).
func rssAnon(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(data, []byte("\nRssAnon:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(line)), " kB"), 10, 64)
	return kb
}
