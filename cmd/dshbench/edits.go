package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
)

// edits measures what one edit may cost (docs/configuration.md,
// editMaxBytes), each as one `dshhost call` process with its wall time and
// peak RSS: an edit of a 10 GB sparse file (refused by its size; and, with
// editMaxBytes raised to 20 GiB, answered `binary file` from its first
// 8192 bytes), and replace_all of a one-byte string in a 200 MB file beside
// a one-span edit of the same file. With -before BINARY, the same calls of
// that binary (an older dshhost) run beside each, on copies of the same
// fixtures, and the ratios compare the two.
func (b *bench) edits(before string) {
	sparse := b.path("sparse10g.img")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		b.add(row{name: "edit, 10 GB sparse file", dsh: figure{err: err}})
		return
	}
	if err := os.Truncate(sparse, 10<<30); err != nil {
		b.add(row{name: "edit, 10 GB sparse file", dsh: figure{err: err}})
		return
	}
	line := strings.Repeat("a", 99) + "\n"
	big := strings.Repeat(line, 200<<20/len(line))
	once := func(bin, file, text, args string) figure {
		if err := os.WriteFile(b.path(file), []byte(text), 0o644); err != nil {
			return figure{err: err}
		}
		return b.edit(bin, args)
	}
	edit := `{"file_path":"sparse10g.img","old_string":"a","new_string":"b"}`
	raised := []string{"--set", "fslocal.editMaxBytes=21474836480"}
	for _, s := range []struct {
		name, command string
		run           func(bin, file string) figure
		maxRSS        int64
	}{
		{"edit, 10 GB sparse file", "dshhost call edit sparse10g.img (refused by its size)",
			func(bin, _ string) figure { return b.edit(bin, edit) }, 64 << 20},
		{"  the same, editMaxBytes 20 GiB", "dshhost call --set fslocal.editMaxBytes=21474836480 edit sparse10g.img (binary, from its prefix)",
			func(bin, _ string) figure { return b.edit(bin, edit, raised...) }, 64 << 20},
		{"replace_all of one byte, 200 MB file", "dshhost call edit big200m-edit.txt a→b replace_all",
			func(bin, file string) figure {
				return once(bin, file, big, `{"file_path":"`+file+`","old_string":"a","new_string":"b","replace_all":true}`)
			}, 0},
		{"  one-span edit, the same file", "dshhost call edit big200m-edit.txt of its one marker line",
			func(bin, file string) figure {
				return once(bin, file, "MARKER\n"+big, `{"file_path":"`+file+`","old_string":"MARKER","new_string":"marker"}`)
			}, 0},
	} {
		r := row{name: s.name, command: s.command, dsh: s.run(b.dshhost, "big200m-edit.txt"), maxRSS: s.maxRSS, bothRSS: true}
		if before != "" {
			r.other, r.otherName = s.run(before, "big200m-before.txt"), "before"
		}
		b.add(r)
	}
	os.Remove(sparse)
	os.Remove(b.path("big200m-edit.txt"))
	os.Remove(b.path("big200m-before.txt"))
}

// edit runs one `dshhost call edit` of bin without the policy (every call
// is a conversation of its own, which has read nothing), watched for its
// peak RSS; a tool error is a figure too (its text is the answer).
func (b *bench) edit(bin, args string, extra ...string) figure {
	argv := append([]string{bin, "call", "--workspace=" + b.ws, "--disable", "fspolicy"}, extra...)
	d, n, rss, cpu, err := run(true, append(argv, "edit", args)...)
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
		err = nil // the tool's own error (too large, binary): measured as an answer
	}
	return figure{p50: d, p99: d, cpu: cpu, bytes: n, peakRSS: rss, err: err}
}
