package fspolicy

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"unique"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dsh-go/dsh/events"
	"github.com/dsh-go/dsh/plugins/fsapi"
)

type conversationActor string

func (a conversationActor) Conversation() (string, bool) { return string(a), true }
func (a conversationActor) SessionID() (string, bool)    { return a.Conversation() }
func (a conversationActor) Principal() string            { return "test" }
func (a conversationActor) ToolName() string             { return "read" }

func see(t testing.TB, p *policy, conv, key string, v fsapi.Version) {
	t.Helper()
	require.NoError(t, p.observed(t.Context(), events.Observation{Target: fsapi.Target{Key: key}, Kind: events.Present, Version: v, Actor: conversationActor(conv)}))
}

func seen(p *policy, conv, key string) bool {
	_, ok := p.lookup(conversationActor(conv), key)
	return ok
}

// TestTenThousandClosedConversationsLeaveNoState: a server whose
// conversations come and go for a long time keeps no observation of the
// ended ones (conversations.md §5.3).
func TestTenThousandClosedConversationsLeaveNoState(t *testing.T) {
	p := newPolicy(defaultConfig())
	for i := range 10000 {
		id := "stdio/c/" + strconv.Itoa(i)
		for _, f := range []string{"/w/a", "/w/b"} {
			see(t, p, id, f, "v")
		}
		if i%1000 == 0 {
			convs, obs := p.size()
			assert.Equal(t, 1, convs, "one conversation live at a time")
			assert.Equal(t, 2, obs)
		}
		require.NoError(t, p.closed(t.Context(), id))
	}
	convs, obs := p.size()
	assert.Zero(t, convs)
	assert.Zero(t, obs)
}

// TestAConversationKeepsAtMostMaxObservations: past the bound the least
// recently recorded observations go first; one recorded again is recent.
func TestAConversationKeepsAtMostMaxObservations(t *testing.T) {
	p := newPolicy(Config{MaxObservations: 32, MaxObservationsTotal: 1000})
	for i := range 32 {
		see(t, p, "c", "/w/"+strconv.Itoa(i), "v")
	}
	see(t, p, "c", "/w/0", "v2") // recorded again: now the most recent
	see(t, p, "c", "/w/new", "v")
	_, obs := p.size()
	assert.LessOrEqual(t, obs, 32)
	assert.Greater(t, obs, 32-32/16-2, "a batch of at most a sixteenth goes")
	assert.True(t, seen(p, "c", "/w/0"), "recorded again, so kept")
	assert.True(t, seen(p, "c", "/w/new"))
	assert.False(t, seen(p, "c", "/w/1"), "the least recently recorded is forgotten")
	r, _ := p.lookup(conversationActor("c"), "/w/0")
	assert.Equal(t, fsapi.Version("v2"), r.version.Value())
}

// TestTheTotalBoundEndsTheLeastRecentlyActiveConversation: past
// maxObservationsTotal the conversation active longest ago loses all its
// observations; the one that is recording never does.
func TestTheTotalBoundEndsTheLeastRecentlyActiveConversation(t *testing.T) {
	p := newPolicy(Config{MaxObservations: 10, MaxObservationsTotal: 25})
	for _, c := range []string{"a", "b"} {
		for i := range 10 {
			see(t, p, c, "/w/"+strconv.Itoa(i), "v")
		}
	}
	assert.True(t, seen(p, "a", "/w/0"), "a lookup makes a active again")
	for i := range 6 {
		see(t, p, "c", "/w/"+strconv.Itoa(i), "v")
	}
	convs, obs := p.size()
	assert.Equal(t, 2, convs)
	assert.Equal(t, 16, obs)
	assert.False(t, seen(p, "b", "/w/0"), "b was the least recently active")
	assert.True(t, seen(p, "a", "/w/9"))
	assert.True(t, seen(p, "c", "/w/5"))
}

// TestRenumberingKeepsTheOrder: when a conversation's counter reaches its
// end, its observations are renumbered in their order.
func TestRenumberingKeepsTheOrder(t *testing.T) {
	p := newPolicy(Config{MaxObservations: 4, MaxObservationsTotal: 10})
	for i := range 4 {
		see(t, p, "c", "/w/"+strconv.Itoa(i), "v")
	}
	p.convs["c"].seq = ^uint32(0)
	see(t, p, "c", "/w/4", "v")
	assert.False(t, seen(p, "c", "/w/0"), "still the least recently recorded")
	assert.True(t, seen(p, "c", "/w/4"))
	assert.Equal(t, uint32(5), p.convs["c"].obs[unique.Make("/w/4")].seq)
}

// BenchmarkConversationMemory reports the heap that 10,000 conversations
// with 100 observations each hold (conversations.md §2: within 64 MiB when
// they saw the same 100 targets), and the same with distinct targets per
// conversation.
func BenchmarkConversationMemory(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		b.Run(fmt.Sprintf("distinct=%v", distinct), func(b *testing.B) {
			const convs, perConv = 10000, 100
			keys := make([]string, perConv)
			versions := make([]fsapi.Version, perConv)
			for i := range perConv {
				keys[i] = fmt.Sprintf("/home/user/project/src/package%02d/file%03d.go", i%10, i)
				versions[i] = fsapi.Version(fmt.Sprintf("2049:%d:%d:1764633600123456789:1764633600123456789", 1_000_000+i, 4096+i))
			}
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				p := newPolicy(defaultConfig())
				for c := range convs {
					id := "default/c/conversation-" + strconv.Itoa(c)
					for i := range perConv {
						key := keys[i]
						if distinct {
							key = key + "." + strconv.Itoa(c)
						}
						see(b, p, id, key, versions[i])
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-heap")
				runtime.KeepAlive(p)
			}
		})
	}
}
