package fspolicy_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/host"
	"github.com/dsh-go/dsh/plugins/fsapi"
	"github.com/dsh-go/dsh/plugins/fspolicy"
)

// actor is a minimal events.Actor.
type actor struct {
	session string
	tool    string
}

func (a actor) Conversation() (string, bool) { return a.session, a.session != "" }
func (a actor) SessionID() (string, bool)    { return a.Conversation() }
func (a actor) Principal() string            { return "test" }
func (a actor) ToolName() string             { return a.tool }

var target = fsapi.Target{Key: "/real/a.txt", DisplayPath: "/w/a.txt"}

func mountPolicy(t *testing.T, h *host.Host) *host.Instance {
	t.Helper()
	inst, err := h.Plugin(t.Context(), fspolicy.Plugin, nil)
	require.NoError(t, err)
	require.NoError(t, inst.Wait(t.Context()))
	return inst
}

func writeIntent(t *testing.T, h *host.Host, a events.Actor) (*fsapi.WriteIntent, error) {
	t.Helper()
	return events.FSWriteIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: target, Actor: a},
		func(context.Context) (*fsapi.WriteIntent, error) { return nil, nil })
}

func editIntent(t *testing.T, h *host.Host, a events.Actor) (*fsapi.EditGuard, error) {
	t.Helper()
	return events.FSEditIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: target, Actor: a},
		func(context.Context) (*fsapi.EditGuard, error) { return nil, nil })
}

func observe(t *testing.T, h *host.Host, a events.Actor, kind events.ObservationKind, v fsapi.Version) {
	t.Helper()
	require.NoError(t, events.FSObserved.Emit(t.Context(), h.Root(), events.Observation{Target: target, Kind: kind, Version: v, Actor: a}))
}

func TestPolicyDecisions(t *testing.T) {
	s1, s2, none := actor{session: "s1"}, actor{session: "s2"}, actor{}
	tests := []struct {
		name      string
		observe   func(t *testing.T, h *host.Host)
		who       events.Actor
		wantWrite *fsapi.WriteIntent
		wantGuard *fsapi.EditGuard
		wantEdit  string
		wantCode  fsapi.Code
	}{
		{name: "an unseen target may only be created and not edited", observe: func(*testing.T, *host.Host) {}, who: s1,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent},
			wantEdit:  `edit requires reading "/w/a.txt" first`, wantCode: fsapi.CodeNotObserved},
		{name: "a present observation authorises replace and a guarded edit", observe: func(t *testing.T, h *host.Host) { observe(t, h, s1, events.Present, "v1") }, who: s1,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: "v1"},
			wantGuard: &fsapi.EditGuard{Version: "v1"}},
		{name: "the latest observation wins even when older", observe: func(t *testing.T, h *host.Host) {
			observe(t, h, s1, events.Present, "v2")
			observe(t, h, s1, events.Present, "v1")
		}, who: s1,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: "v1"},
			wantGuard: &fsapi.EditGuard{Version: "v1"}},
		{name: "an absent observation allows creating and reports edits not found", observe: func(t *testing.T, h *host.Host) { observe(t, h, s1, events.Absent, "") }, who: s1,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent},
			wantEdit:  `cannot edit "/w/a.txt": not found`, wantCode: fsapi.CodeNotFound},
		{name: "one session's read does not authorise another session", observe: func(t *testing.T, h *host.Host) { observe(t, h, s1, events.Present, "v1") }, who: s2,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent},
			wantEdit:  `edit requires reading "/w/a.txt" first`, wantCode: fsapi.CodeNotObserved},
		{name: "a call without a session records nothing and is never authorised", observe: func(t *testing.T, h *host.Host) { observe(t, h, none, events.Present, "v1") }, who: none,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent},
			wantEdit:  `edit requires reading "/w/a.txt" first`, wantCode: fsapi.CodeNotObserved},
		{name: "a nil actor has no owner", observe: func(*testing.T, *host.Host) {}, who: nil,
			wantWrite: &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent},
			wantEdit:  `edit requires reading "/w/a.txt" first`, wantCode: fsapi.CodeNotObserved},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := host.New()
			defer h.Shutdown(context.Background())
			mountPolicy(t, h)
			tc.observe(t, h)
			wi, err := writeIntent(t, h, tc.who)
			require.NoError(t, err)
			assert.Equal(t, tc.wantWrite, wi)
			guard, err := editIntent(t, h, tc.who)
			if tc.wantEdit != "" {
				assert.EqualError(t, err, tc.wantEdit)
				var fe *fsapi.Error
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tc.wantCode, fe.Code)
				assert.Nil(t, guard)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantGuard, guard)
		})
	}
}

func TestPolicyIsTheFirstDecider(t *testing.T) {
	// host §6 item 24: with fspolicy registered first, a later decider is
	// never reached and the default continuation is never invoked.
	h := host.New()
	defer h.Shutdown(context.Background())
	mountPolicy(t, h)
	laterReached := false
	_, err := events.FSWriteIntent.On(h.Root(), func(ctx context.Context, r events.IntentRequest, next host.Next[*fsapi.WriteIntent]) (*fsapi.WriteIntent, error) {
		laterReached = true
		return nil, nil
	})
	require.NoError(t, err)
	defaultRan := false
	wi, err := events.FSWriteIntent.Waterfall(t.Context(), h.Root(), events.IntentRequest{Target: target, Actor: actor{session: "s"}},
		func(context.Context) (*fsapi.WriteIntent, error) { defaultRan = true; return nil, nil })
	require.NoError(t, err)
	assert.Equal(t, &fsapi.WriteIntent{Kind: fsapi.CreateIfAbsent}, wi)
	assert.False(t, laterReached)
	assert.False(t, defaultRan)
}

func TestDisposingThePolicyDropsStateAndListeners(t *testing.T) {
	// host §6 item 23.
	h := host.New()
	defer h.Shutdown(context.Background())
	baseline := h.Counts()
	inst := mountPolicy(t, h)
	assert.Equal(t, baseline.Listeners+5, h.Counts().Listeners)
	s1 := actor{session: "s1"}
	observe(t, h, s1, events.Present, "v1")
	require.NoError(t, inst.Dispose(t.Context()))
	assert.Equal(t, baseline, h.Counts(), "mount then unmount returns to baseline")

	wi, err := writeIntent(t, h, s1)
	require.NoError(t, err)
	assert.Nil(t, wi, "without the policy the default continuation decides: unconditional")
	guard, err := editIntent(t, h, s1)
	require.NoError(t, err)
	assert.Nil(t, guard, "without the policy edits are unguarded")

	mountPolicy(t, h)
	_, err = editIntent(t, h, s1)
	assert.EqualError(t, err, `edit requires reading "/w/a.txt" first`, "a re-mounted policy starts empty, even for the same session")
}

// TestGuardsCarryTheObservedDigest ([D24]): the digest of the latest
// observation travels in both guards; an observation without one (a
// streamed read, a file over the bound) gives guards without one.
func TestGuardsCarryTheObservedDigest(t *testing.T) {
	h := host.New()
	defer h.Shutdown(context.Background())
	mountPolicy(t, h)
	s1 := actor{session: "s1"}
	d := fsapi.DigestOf("hello\n")
	require.NoError(t, events.FSObserved.Emit(t.Context(), h.Root(), events.Observation{Target: target, Kind: events.Present, Version: "v1", Digest: d, Actor: s1}))
	w, err := writeIntent(t, h, s1)
	require.NoError(t, err)
	assert.Equal(t, &fsapi.WriteIntent{Kind: fsapi.ReplaceIfVersion, Version: "v1", Digest: d}, w)
	g, err := editIntent(t, h, s1)
	require.NoError(t, err)
	assert.Equal(t, &fsapi.EditGuard{Version: "v1", Digest: d}, g)

	observe(t, h, s1, events.Present, "v2")
	g, err = editIntent(t, h, s1)
	require.NoError(t, err)
	assert.Equal(t, &fsapi.EditGuard{Version: "v2"}, g, "the latest observation wins, digest and all")
	assert.True(t, g.Digest.IsZero())
}
