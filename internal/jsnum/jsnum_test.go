package jsnum

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want string
	}{
		{"zero prints 0", 0, "0"},
		{"negative zero prints 0", math.Copysign(0, -1), "0"},
		{"a small integer prints plain", 2, "2"},
		{"a negative integer keeps its sign", -3, "-3"},
		{"a fraction prints its shortest digits", 1.5, "1.5"},
		{"a negative fraction", -0.25, "-0.25"},
		{"0.1 prints its shortest form", 0.1, "0.1"},
		{"1e-6 is still plain", 1e-6, "0.000001"},
		{"1.5e-6 is still plain", 1.5e-6, "0.0000015"},
		{"below 1e-6 the exponent form has a sign", 1e-7, "1e-7"},
		{"a small exponent form keeps its digits", 1.25e-10, "1.25e-10"},
		{"2^53 prints all its digits", 9007199254740992, "9007199254740992"},
		{"1e20 prints plain (E offset-huge)", 1e20, "100000000000000000000"},
		{"just below 1e21 prints plain", 999999999999999900000, "999999999999999900000"},
		{"1e21 switches to exponent form", 1e21, "1e+21"},
		{"an exponent form keeps its fraction", 1.5e300, "1.5e+300"},
		{"a negative exponent form", -2e22, "-2e+22"},
		{"the largest float", math.MaxFloat64, "1.7976931348623157e+308"},
		{"the smallest subnormal", 5e-324, "5e-324"},
		{"a large integral value with fraction digits", 123456789.125, "123456789.125"},
		{"NaN", math.NaN(), "NaN"},
		{"positive infinity", math.Inf(1), "Infinity"},
		{"negative infinity", math.Inf(-1), "-Infinity"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Format(tc.in))
		})
	}
}

// Below 1e21 JavaScript's form is Go's shortest 'f' form (contract §6.7.1
// Note (Go)), for every magnitude from 1e-6 up.
func TestFormatNumberAgreesWithPlainFormBelow1e21(t *testing.T) {
	for e := -6; e <= 20; e++ {
		for _, m := range []float64{1, 1.5, 3.0000001, 7.77, 9.999999} {
			v := m * math.Pow10(e)
			if v >= 1e21 {
				continue
			}
			assert.Equal(t, strconv.FormatFloat(v, 'f', -1, 64), Format(v), "v=%v", v)
			assert.Equal(t, "-"+strconv.FormatFloat(v, 'f', -1, 64), Format(-v), "v=%v", -v)
		}
	}
}
