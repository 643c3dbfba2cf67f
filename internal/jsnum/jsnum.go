// Package jsnum prints numbers as JavaScript's Number.prototype.toString
// does, the number form of contract §6.7.1 that argument echoes in tool
// messages use.
package jsnum

import (
	"math"
	"strconv"
	"strings"
)

// Format returns v as JavaScript's Number.prototype.toString prints it,
// which is how offsets appear in read and list messages and footers (contract
// §6.7.1, Note (Go)). With the shortest round-tripping digits d₁…d_k and
// decimal exponent n (v = 0.d₁…d_k × 10ⁿ):
//   - 10⁻⁶ ≤ |v| < 10²¹ prints as plain decimal: `3`, `1.5`,
//     `100000000000000000000`, `0.000001`;
//   - anything else prints in exponent form with a sign: `1e+21`,
//     `1.5e+300`, `1e-7`;
//   - 0 and −0 print `0`, a negative number gets a leading `-`, and NaN and
//     ±Inf print `NaN`, `Infinity`, `-Infinity`.
func Format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		return "0"
	}
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	// Shortest digits in Go's exponent form: "d.ddde±XX".
	e := strconv.FormatFloat(v, 'e', -1, 64)
	mant, expPart, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expPart) // v = d.ddd × 10^exp
	k := len(digits)
	n := exp + 1 // v = 0.ddd × 10^n
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}
