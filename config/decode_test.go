package config_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/config"
	"github.com/dsh-go/dsh/host"
)

type limits struct {
	Depth int `json:"depth"`
}

// sampleConfig exercises every kind of field Decode handles.
type sampleConfig struct {
	Limit int           `json:"limit"`
	Name  string        `json:"name"`
	Ratio float64       `json:"ratio"`
	On    bool          `json:"on"`
	Wait  time.Duration `json:"wait"`
	Inner limits        `json:"inner"`
	List  []limits      `json:"list"`
	Tags  []string      `json:"tags"`
	Small uint8         `json:"small"`
}

func defaultSample() sampleConfig {
	return sampleConfig{Limit: 10, Name: "default", Wait: 5 * time.Second}
}

// Validate rejects a negative limit with a key path and a reserved name with
// a plain error.
func (c sampleConfig) Validate() error {
	if c.Limit < 0 {
		return &host.ConfigError{Issues: []host.ConfigIssue{{Path: "limit", Problem: "must be at least 0"}}}
	}
	if c.Name == "forbidden" {
		return errors.New(`name "forbidden" is reserved`)
	}
	return nil
}

// samplePlugin takes a sampleConfig onto defaultSample.
var samplePlugin = host.Define("cfg", func(context.Context, *host.Scope, sampleConfig) error { return nil }, host.Defaults(defaultSample))

// host §1.6, §3.7: strict decoding onto the defaults, then Validate, all
// before apply; every issue names its key path.
func TestDecode(t *testing.T) {
	p := samplePlugin
	full := defaultSample()
	full.Limit = 3
	cases := []struct {
		name string
		raw  any
		want sampleConfig
		err  string
	}{
		{name: "nil gives the defaults", raw: nil, want: defaultSample()},
		{name: "a config value is used as is", raw: full, want: full},
		{name: "a config pointer is dereferenced", raw: &full, want: full},
		{name: "a nil config pointer gives the defaults", raw: (*sampleConfig)(nil), want: defaultSample()},
		{name: "an empty mapping gives the defaults", raw: map[string]any{}, want: defaultSample()},
		{
			name: "a mapping is decoded onto the defaults",
			raw: map[string]any{
				"limit": 7.0, "ratio": 2, "on": true, "wait": "250ms", "small": 255,
				"inner": map[string]any{"depth": 2}, "list": []any{map[string]any{"depth": 1}},
				"tags": []any{"a", "b"},
			},
			want: sampleConfig{
				Limit: 7, Name: "default", Ratio: 2, On: true, Wait: 250 * time.Millisecond, Small: 255,
				Inner: limits{Depth: 2}, List: []limits{{Depth: 1}}, Tags: []string{"a", "b"},
			},
		},
		{name: "a null value keeps the default", raw: map[string]any{"name": nil}, want: defaultSample()},
		{name: "an unknown key is an issue", raw: map[string]any{"bogus": 1},
			err: `plugin "cfg": invalid config: bogus: unknown key`},
		{name: "keys match their json tag exactly", raw: map[string]any{"Limit": 1},
			err: `plugin "cfg": invalid config: Limit: unknown key`},
		{name: "an unknown nested key names its path", raw: map[string]any{"inner": map[string]any{"zz": 1}},
			err: `plugin "cfg": invalid config: inner.zz: unknown key`},
		{name: "a string for an int field is an issue", raw: map[string]any{"limit": "x"},
			err: `plugin "cfg": invalid config: limit: expected an integer, got string "x"`},
		{name: "2.5 for an int field is an issue", raw: map[string]any{"limit": 2.5},
			err: `plugin "cfg": invalid config: limit: expected an integer, got 2.5`},
		{name: "an out-of-range integer is an issue", raw: map[string]any{"small": 300},
			err: `plugin "cfg": invalid config: small: 300 is out of range`},
		{name: "a negative integer for an unsigned field is an issue", raw: map[string]any{"small": -1},
			err: `plugin "cfg": invalid config: small: -1 is out of range`},
		{name: "a string for a bool field is an issue", raw: map[string]any{"on": "yes"},
			err: `plugin "cfg": invalid config: on: expected a boolean, got string "yes"`},
		{name: "a number for a string field is an issue", raw: map[string]any{"name": 3},
			err: `plugin "cfg": invalid config: name: expected a string, got 3`},
		{name: "a string for a float field is an issue", raw: map[string]any{"ratio": "x"},
			err: `plugin "cfg": invalid config: ratio: expected a number, got string "x"`},
		{name: "a bad duration is an issue", raw: map[string]any{"wait": "soon"},
			err: `plugin "cfg": invalid config: wait: expected a duration such as "5s", got string "soon"`},
		{name: "a scalar for a struct field is an issue", raw: map[string]any{"inner": 3},
			err: `plugin "cfg": invalid config: inner: expected a mapping, got 3`},
		{name: "a scalar for a list field is an issue", raw: map[string]any{"tags": "a"},
			err: `plugin "cfg": invalid config: tags: expected a list, got string "a"`},
		{name: "a list element names its index", raw: map[string]any{"list": []any{map[string]any{"depth": 1}, map[string]any{"depth": "a"}}},
			err: `plugin "cfg": invalid config: list[1].depth: expected an integer, got string "a"`},
		{name: "a config that is not a mapping is an issue", raw: "str",
			err: `plugin "cfg": invalid config: expected a mapping, got string "str"`},
		{name: "every issue is listed, sorted by key path",
			raw: map[string]any{"on": "yes", "limit": 2.5, "bogus": 1, "inner": map[string]any{"depth": "deep", "zz": 1}},
			err: `plugin "cfg": invalid config: bogus: unknown key; inner.depth: expected an integer, got string "deep"; inner.zz: unknown key; limit: expected an integer, got 2.5; on: expected a boolean, got string "yes"`},
		{name: "Validate runs after decoding and names its key path", raw: map[string]any{"limit": -1},
			err: `plugin "cfg": invalid config: limit: must be at least 0`},
		{name: "a plain Validate error is one issue for the whole config", raw: map[string]any{"name": "forbidden"},
			err: `plugin "cfg": invalid config: name "forbidden" is reserved`},
		{name: "Validate also runs on a config value", raw: sampleConfig{Limit: -1},
			err: `plugin "cfg": invalid config: limit: must be at least 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := config.Decode(p, tc.raw)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				assert.ErrorIs(t, err, host.ErrConfig)
				var ce *host.ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, "cfg", ce.Plugin)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestDecodeIssues(t *testing.T) {
	_, err := config.Decode(samplePlugin, map[string]any{"limit": "x", "zz": true})
	var ce *host.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []host.ConfigIssue{
		{Path: "limit", Problem: `expected an integer, got string "x"`},
		{Path: "zz", Problem: "unknown key"},
	}, ce.Issues)
}

// limitConfig names its own message for a bad limit, as toolfs must
// (contract §6.1).
type limitConfig struct {
	Limit int     `json:"limit"`
	Inner limits  `json:"inner"`
	Ratio float64 `json:"ratio"`
}

func (c limitConfig) Validate() error {
	if c.Limit < 1 {
		return &host.ConfigError{Issues: []host.ConfigIssue{{Path: "limit", Problem: "limit must be a positive integer"}}}
	}
	return nil
}

// A value the decoder cannot fill leaves its field at zero, and Validate's
// wording at the same key path replaces the decoder's: 2.5, "x" and 0 get the
// plugin's one message (host §3.7: custom messages come from Validate); other
// fields keep the decoder's wording.
func TestValidateNamesTheMessageOfAnUndecodableValue(t *testing.T) {
	p := host.Define("limited", func(context.Context, *host.Scope, limitConfig) error { return nil },
		host.Defaults(func() limitConfig { return limitConfig{Limit: 1} }))
	cases := []struct {
		name string
		raw  map[string]any
		err  string
	}{
		{"a float", map[string]any{"limit": 2.5}, `plugin "limited": invalid config: limit: limit must be a positive integer`},
		{"a string", map[string]any{"limit": "x"}, `plugin "limited": invalid config: limit: limit must be a positive integer`},
		{"zero, through Validate", map[string]any{"limit": 0}, `plugin "limited": invalid config: limit: limit must be a positive integer`},
		{"a field Validate accepts at zero keeps the decoder's wording", map[string]any{"ratio": "x", "limit": 2.5},
			`plugin "limited": invalid config: limit: limit must be a positive integer; ratio: expected a number, got string "x"`},
		{"a nested path Validate does not name keeps the decoder's wording", map[string]any{"inner": map[string]any{"depth": "x"}},
			`plugin "limited": invalid config: inner.depth: expected an integer, got string "x"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Decode(p, tc.raw)
			assert.EqualError(t, err, tc.err)
		})
	}
	got, err := config.Decode(p, map[string]any{"limit": 3})
	require.NoError(t, err)
	assert.Equal(t, limitConfig{Limit: 3}, got)
}
