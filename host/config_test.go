package host_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/host"
)

// sampleConfig is the typed config of the host's config tests.
type sampleConfig struct {
	Limit int    `json:"limit"`
	Name  string `json:"name"`
}

func defaultSample() sampleConfig { return sampleConfig{Limit: 10, Name: "default"} }

// Validate rejects a negative limit with a key path and a reserved name with
// a plain error.
func (c sampleConfig) Validate() error {
	if c.Limit < 0 {
		return &host.ConfigError{Issues: []host.ConfigIssue{{Path: "limit", Problem: "must be at least 0"}}}
	}
	if c.Name == "forbidden" {
		return errors.New(`name "forbidden" is reserved`)
	}
	if c.Name == "panic" {
		panic("validate exploded")
	}
	return nil
}

// pointerValidated has a Validate method on its pointer receiver.
type pointerValidated struct {
	Port int `json:"port"`
}

func (c *pointerValidated) Validate() error {
	if c.Port == 0 {
		return &host.ConfigError{Issues: []host.ConfigIssue{{Path: "port", Problem: "is required"}}}
	}
	return nil
}

func samplePlugin(apply func(ctx context.Context, s *host.Scope, c sampleConfig) error) *host.Plugin {
	if apply == nil {
		apply = func(context.Context, *host.Scope, sampleConfig) error { return nil }
	}
	return host.Define("cfg", apply, host.Defaults(defaultSample))
}

// host §1.6, §3.7: the host takes typed config only (decoding is the config
// package's) and runs the plugin's own Validate before apply.
func TestCheckConfig(t *testing.T) {
	p := samplePlugin(nil)
	full := sampleConfig{Limit: 3, Name: "x"}
	cases := []struct {
		name string
		cfg  any
		want sampleConfig
		err  string
	}{
		{name: "nil gives the defaults", cfg: nil, want: defaultSample()},
		{name: "a config value is used as is", cfg: full, want: full},
		{name: "a config pointer is dereferenced", cfg: &full, want: full},
		{name: "a nil config pointer gives the defaults", cfg: (*sampleConfig)(nil), want: defaultSample()},
		{name: "a raw mapping is not decoded here", cfg: map[string]any{"limit": 1},
			err: `plugin "cfg": invalid config: expected a host_test.sampleConfig value, got map[string]interface {} (raw config is decoded by config.Decode)`},
		{name: "Validate names its key path", cfg: sampleConfig{Limit: -1},
			err: `plugin "cfg": invalid config: limit: must be at least 0`},
		{name: "a plain Validate error is one issue for the whole config", cfg: sampleConfig{Name: "forbidden"},
			err: `plugin "cfg": invalid config: name "forbidden" is reserved`},
		{name: "a panicking Validate is an issue", cfg: sampleConfig{Name: "panic"},
			err: `plugin "cfg": invalid config: Validate panicked: validate exploded`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := p.CheckConfig(tc.cfg)
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

func TestCheckConfigPointerReceiverValidate(t *testing.T) {
	p := host.Define("server", func(context.Context, *host.Scope, pointerValidated) error { return nil })
	_, err := p.CheckConfig(nil)
	assert.EqualError(t, err, `plugin "server": invalid config: port: is required`)
	got, err := p.CheckConfig(pointerValidated{Port: 8080})
	require.NoError(t, err)
	assert.Equal(t, pointerValidated{Port: 8080}, got)
}

func TestDefaultsOfTheWrongTypePanics(t *testing.T) {
	assert.PanicsWithValue(t, `host: Defaults for plugin "cfg" has type int, want host_test.sampleConfig`, func() {
		host.Define("cfg", func(context.Context, *host.Scope, sampleConfig) error { return nil },
			host.Defaults(func() int { return 1 }))
	})
}

func TestPluginDescribesItself(t *testing.T) {
	a, b := host.NewKey[int]("a"), host.NewKey[int]("b")
	p := host.Define("described", func(context.Context, *host.Scope, sampleConfig) error { return nil },
		host.Inject(a), host.Optional(b), host.Provides(a, b), host.Defaults(defaultSample))
	assert.Equal(t, "described", p.Name())
	assert.Equal(t, "sampleConfig", p.ConfigType().Name())
	assert.Equal(t, defaultSample(), p.DefaultConfig())
	assert.Equal(t, noConfig{}, define("bare", func(context.Context, *host.Scope) error { return nil }).DefaultConfig())

	h := newHost(t)
	mount(t, h, p, nil)
	snap := h.Snapshot()
	require.Len(t, snap, 1)
	assert.Equal(t, []string{"a"}, snap[0].Injects)
	assert.Equal(t, []string{"b"}, snap[0].Optional)
	assert.Equal(t, []string{"a", "b"}, snap[0].Provides)
}

// host §6 item 3: an invalid config gives FAILED, apply never runs, and the
// error lists the key paths. (Unknown keys and wrong types are the config
// package's decoder's: config's TestDecode.)
func TestInvalidConfigFailsWithoutApply(t *testing.T) {
	cases := []struct {
		name string
		cfg  any
		err  string
	}{
		{"not the config type", "ten", `plugin "cfg": invalid config: expected a host_test.sampleConfig value, got string (raw config is decoded by config.Decode)`},
		{"Validate fails", sampleConfig{Limit: -5}, `plugin "cfg": invalid config: limit: must be at least 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t)
			applied := 0
			p := samplePlugin(func(context.Context, *host.Scope, sampleConfig) error { applied++; return nil })
			inst := mount(t, h, p, tc.cfg)
			assert.Equal(t, host.StateFailed, inst.State())
			assert.EqualError(t, inst.Err(), tc.err)
			assert.ErrorIs(t, inst.Wait(t.Context()), host.ErrConfig)
			assert.Nil(t, inst.Config())
			assert.Zero(t, applied, "apply must not run on an invalid config")
		})
	}
}

// host §1.6: an update re-validates before anything restarts; an invalid one
// changes nothing, a valid one restarts the instance with the new config.
func TestUpdateValidatesFirst(t *testing.T) {
	h := newHost(t)
	var seen []int
	p := samplePlugin(func(_ context.Context, _ *host.Scope, c sampleConfig) error {
		seen = append(seen, c.Limit)
		return nil
	})
	inst := mount(t, h, p, sampleConfig{Limit: 1})
	require.Equal(t, host.StateActive, inst.State())

	err := inst.Update(t.Context(), sampleConfig{Limit: -1})
	assert.EqualError(t, err, `plugin "cfg": invalid config: limit: must be at least 0`)
	assert.Equal(t, host.StateActive, inst.State())
	assert.Equal(t, []int{1}, seen, "an invalid update must not restart")
	assert.Equal(t, 1, inst.Config().(sampleConfig).Limit)

	require.NoError(t, inst.Update(t.Context(), sampleConfig{Limit: 2}))
	assert.Equal(t, host.StateActive, inst.State())
	assert.Equal(t, []int{1, 2}, seen)
	assert.Equal(t, 2, inst.Config().(sampleConfig).Limit)
}
