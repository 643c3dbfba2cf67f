package toolfs

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/gif" // the decoders image.Decode knows
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"

	_ "golang.org/x/image/webp"

	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/tools"
)

// imageTypes are the image types read returns as image content, as
// http.DetectContentType names them from the first bytes (the content,
// never the file name).
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// imageValue is the structured value of a read of an image: the display
// path, the MIME type and the file's bytes (in process only; the content
// is one image block, the summary the path, type and size).
type imageValue struct {
	Path     string `json:"path"`
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

// CheckOutput implements tools.OutputChecker: the type is one of the four.
func (v imageValue) CheckOutput() error {
	if !imageTypes[v.MIMEType] {
		return errors.New(`mimeType "` + v.MIMEType + `" is not an image type read returns`)
	}
	return nil
}

// imageMaxPixels bounds the pixels of an image read decodes to check it
// (4096 × 4096): a small file may claim dimensions whose decoding would
// take all memory.
const imageMaxPixels = 1 << 24

// readImage returns t's bytes as an image when the provider can read raw
// bytes (fsapi.Opener), the file is at most readImageMaxBytes and its
// content is a PNG, JPEG, GIF or WebP image that decodes whole, of at most
// imageMaxPixels pixels; false otherwise (read then keeps its binary-file
// error): a client's model refuses an image it cannot decode, and a
// session that sent one can stay broken. A file that grew past the bound
// while read is not an image either.
func (ts *toolset) readImage(ctx context.Context, t fsapi.Target, info *fsapi.Info) (imageValue, bool) {
	o, ok := ts.fs.(fsapi.Opener)
	if !ok || !info.HasSize || info.Size > ts.cfg.ReadImageMaxBytes {
		return imageValue{}, false
	}
	r, err := o.Open(ctx, t)
	if err != nil {
		return imageValue{}, false
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, ts.cfg.ReadImageMaxBytes+1))
	if err != nil || int64(len(data)) > ts.cfg.ReadImageMaxBytes || ctx.Err() != nil {
		return imageValue{}, false
	}
	mime := http.DetectContentType(data)
	if !imageTypes[mime] || !decodes(data) {
		return imageValue{}, false
	}
	return imageValue{Path: t.DisplayPath, MIMEType: mime, Data: data}, true
}

// renderImage is an image read's content: one image block, which
// `dshhost call` and `run` print as `[image/<type>, <n> bytes]`.
func renderImage(v imageValue) []tools.Block {
	return []tools.Block{tools.ImageBlock(v.MIMEType, v.Data)}
}

// decodes reports whether data is an image of at most imageMaxPixels
// pixels that decodes to its end.
func decodes(data []byte) bool {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > imageMaxPixels {
		return false
	}
	_, _, err = image.Decode(bytes.NewReader(data))
	return err == nil
}
