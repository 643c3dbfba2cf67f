package main

import (
	"fmt"
	"strings"
	"time"
)

// row is one line of the report: dshhost's figure, the alternative's (if
// measured) and the goals it is checked against (zero: none).
type row struct {
	name, command string
	dsh, other    figure
	otherName     string
	maxRatio      float64 // p50 ratio dsh/other
	maxBytes      int     // dsh response bytes
	maxRSS        int64   // dsh peak RSS
	bothRSS       bool    // show the alternative's peak RSS, goal or not
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	fmt.Println(r.line())
}

// line formats the row and its goal verdicts.
func (r row) line() string {
	var s strings.Builder
	fmt.Fprintf(&s, "%-48s", r.name)
	if r.dsh.err != nil {
		fmt.Fprintf(&s, " ERROR: %v", r.dsh.err)
		return s.String()
	}
	fmt.Fprintf(&s, " dsh p50 %s p99 %s cpu %s", ms(r.dsh.p50), ms(r.dsh.p99), ms(r.dsh.cpu))
	if r.dsh.bytes > 0 {
		fmt.Fprintf(&s, " %s", size(int64(r.dsh.bytes)))
	}
	if r.dsh.peakRSS > 0 {
		fmt.Fprintf(&s, " peak RSS %s", size(r.dsh.peakRSS))
	}
	var verdicts []string
	switch {
	case r.other.err != nil:
		fmt.Fprintf(&s, " | %s: ERROR %v", r.otherName, r.other.err)
	case r.other.p50 > 0:
		ratio := float64(r.dsh.p50) / float64(r.other.p50)
		fmt.Fprintf(&s, " | %s p50 %s p99 %s cpu %s", r.otherName, ms(r.other.p50), ms(r.other.p99), ms(r.other.cpu))
		if r.other.bytes > 0 {
			fmt.Fprintf(&s, " %s", size(int64(r.other.bytes)))
		}
		if r.other.peakRSS > 0 && (r.maxRSS > 0 || r.bothRSS) {
			fmt.Fprintf(&s, " peak RSS %s", size(r.other.peakRSS))
		}
		fmt.Fprintf(&s, " | ratio %.2fx", ratio)
		if r.other.cpu > 0 {
			fmt.Fprintf(&s, " (cpu %.2fx)", float64(r.dsh.cpu)/float64(r.other.cpu))
		}
		if r.maxRatio > 0 {
			verdicts = append(verdicts, verdict(ratio <= r.maxRatio, fmt.Sprintf("ratio <= %.2g", r.maxRatio)))
		}
	case r.otherName != "":
		fmt.Fprintf(&s, " | %s: skipped", r.otherName)
	}
	if r.maxBytes > 0 {
		verdicts = append(verdicts, verdict(r.dsh.bytes <= r.maxBytes, "bytes <= "+size(int64(r.maxBytes))))
	}
	if r.maxRSS > 0 {
		verdicts = append(verdicts, verdict(r.dsh.peakRSS <= r.maxRSS, "RSS <= "+size(r.maxRSS)))
	}
	if len(verdicts) > 0 {
		s.WriteString(" | " + strings.Join(verdicts, ", "))
	}
	return s.String()
}

func verdict(ok bool, goal string) string {
	if ok {
		return "ok " + goal
	}
	return "MISSED " + goal
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// report prints the commands behind the figures.
func (b *bench) report() {
	fmt.Println("\nwhat each line measured:")
	for _, r := range b.rows {
		fmt.Printf("  %-48s %s\n", strings.TrimSpace(r.name), r.command)
	}
}
