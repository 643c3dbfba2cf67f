package fslocal

import (
	"context"
	"io"
	"strings"

	"github.com/dsh-go/dsh/plugins/fsapi"
)

// priorShape is what a write must know of the file it replaces (contract
// §3.7 step 6, [D2]): whether it starts with a BOM, and whether it is
// CRLF-dominant after the BOM.
type priorShape struct {
	bom, crlfDominant bool
}

// shapeBytes is how much of the prior file decides its shape: its first
// 1 MiB, so an overwrite never reads the rest of the old file (contract
// §3.7 step 6, [D26]).
const shapeBytes = 1 << 20

// shapeOf returns the shape of the prior file's bytes, from the first
// shapeBytes of them.
func shapeOf(prior string) priorShape {
	rest, bom := stripBOM(prior[:min(len(prior), shapeBytes)])
	return priorShape{bom: bom, crlfDominant: crlfDominant(rest)}
}

// encode returns the bytes that write content over a file of this shape:
// the BOM is kept unless content brings U+FEFF itself, and a CRLF-dominant
// file gets content's bare LFs as CRLF (contract §3.7 step 6, [D2]).
func (s priorShape) encode(content string) string {
	data := content
	if s.crlfDominant {
		data = bareLFToCRLF(data)
	}
	if s.bom && !strings.HasPrefix(content, utf8BOM) {
		data = utf8BOM + data
	}
	return data
}

// scanPrior reads the first shapeBytes of the existing file t for its
// shape, without holding the file whole (contract §5.4a [D20], [D26]): a
// write over a 1 GB file reads 1 MiB of it. op words the errors as
// readPrior does: FS_ABORTED `<op> aborted` between chunks, permission
// errors for op.
func (p *Provider) scanPrior(ctx context.Context, t fsapi.Target, op string) (priorShape, error) {
	f, err := p.openRegular(ctx, t, op)
	if err != nil {
		return priorShape{}, err
	}
	defer f.Close()
	head, err := readAll(ctx, io.LimitReader(f, shapeBytes), shapeBytes, op)
	if err != nil {
		return priorShape{}, coded(op, t.DisplayPath, err)
	}
	return shapeOf(head), nil
}
