package fsapi

import "context"

// DefaultDiffBasisMaxBytes is the default diff basis bound, 10485760 bytes
// (10 MiB): toolfs's diffBasisMaxBytes (contract §5.4a [D20]).
const DefaultDiffBasisMaxBytes int64 = 10 << 20

type diffBasisKey struct{}

// WithDiffBasis returns ctx carrying maxBytes (≥ 1) as the diff basis bound
// of the WriteText and EditText calls made under it (contract §5.4a [D20]).
// Past it, a provider does not return the Before/After texts (the outcome's
// BasisOmitted is true), and a write does not hold a larger prior file whole:
// it streams it only where the contract must look at it (the BOM and the
// line-ending dominance of §3.7 step 6). The bound is a context value because
// it shapes what a mutation returns, not what it does: the bytes on disk are
// the same under any bound.
func WithDiffBasis(ctx context.Context, maxBytes int64) context.Context {
	return context.WithValue(ctx, diffBasisKey{}, maxBytes)
}

// DiffBasis returns the diff basis bound carried by ctx, in bytes, or
// [DefaultDiffBasisMaxBytes] when it carries none (or a value below 1).
func DiffBasis(ctx context.Context) int64 {
	if n, ok := ctx.Value(diffBasisKey{}).(int64); ok && n >= 1 {
		return n
	}
	return DefaultDiffBasisMaxBytes
}
