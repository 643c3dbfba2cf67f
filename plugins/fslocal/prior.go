package fslocal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/dsh-go/dsh/internal/eol"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

// priorShape is what a write must know of the file it replaces (contract
// §3.7 step 6, [D2]): whether it starts with a BOM, and whether it is
// CRLF-dominant after the BOM.
type priorShape struct {
	bom, crlfDominant bool
}

// shapeOf returns the shape of the prior file's bytes.
func shapeOf(prior string) priorShape {
	rest, bom := eol.StripBOM(prior)
	return priorShape{bom: bom, crlfDominant: eol.CRLFDominant(rest)}
}

// encode returns the bytes that write content over a file of this shape:
// the BOM is kept unless content brings U+FEFF itself, and a CRLF-dominant
// file gets content's bare LFs as CRLF (contract §3.7 step 6, [D2]).
func (s priorShape) encode(content string) string {
	data := content
	if s.crlfDominant {
		data = eol.BareLFToCRLF(data)
	}
	if s.bom && !strings.HasPrefix(content, eol.BOM) {
		data = eol.BOM + data
	}
	return data
}

// scanPrior streams the existing file t for its shape, one chunkSize buffer
// at a time, without holding it whole (contract §5.4a [D20]): a write over a
// 1 GB file needs 64 KiB here, not 1 GB. The counts are those of
// eol.Counts over the bytes after the BOM; a CRLF pair split across two reads
// counts once. op words the errors as readPrior does: FS_ABORTED
// `<op> aborted` between chunks, permission errors for op.
func (p *Provider) scanPrior(ctx context.Context, t fsapi.Target, op string) (priorShape, error) {
	f, _, err := p.openKey(t, op)
	if err != nil {
		return priorShape{}, coded(op, t.DisplayPath, err)
	}
	defer f.Close()
	var (
		buf       = make([]byte, chunkSize)
		head      []byte // the first bytes, until there are enough for the BOM
		crlf, lfs int64
		prevCR    bool
	)
	for {
		if err := ctx.Err(); err != nil {
			return priorShape{}, fsapi.ErrAborted(op, err)
		}
		n, err := f.Read(buf)
		chunk := buf[:n]
		if len(head) < len(eol.BOM) {
			head = append(head, chunk[:min(n, len(eol.BOM)-len(head))]...)
		}
		if n > 0 {
			lfs += int64(bytes.Count(chunk, []byte{'\n'}))
			crlf += int64(bytes.Count(chunk, []byte("\r\n")))
			if prevCR && chunk[0] == '\n' {
				crlf++
			}
			prevCR = chunk[n-1] == '\r'
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return priorShape{}, coded(op, t.DisplayPath, err)
		}
	}
	return priorShape{bom: string(head) == eol.BOM, crlfDominant: crlf > lfs-crlf}, nil
}
