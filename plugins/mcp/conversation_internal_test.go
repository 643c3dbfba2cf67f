package mcp

import (
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closedLog records the conversations a registry ended, in order.
type closedLog struct {
	mu  sync.Mutex
	ids []string
}

func (l *closedLog) add(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids = append(l.ids, id)
}

func (l *closedLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ids...)
}

// TestAnIdleConversationEnds: a conversation none of whose calls started
// for the idle timeout ends once, with conversation/closed; one whose call
// is still running does not end until the call returned and it was idle.
func TestAnIdleConversationEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log closedLog
		c := newConversations(10, time.Minute, log.add)
		_, end := c.begin("stdio/c/a", "")
		end()
		_, endB := c.begin("stdio/c/b", "") // still running
		time.Sleep(30 * time.Second)
		_, end = c.begin("stdio/c/c", "")
		end()
		time.Sleep(31 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"stdio/c/a"}, log.get(), "a was idle a minute; b runs; c started 31 s ago")
		endB()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"stdio/c/a", "stdio/c/b", "stdio/c/c"}, log.get())
		assert.Zero(t, c.live())
		time.Sleep(time.Hour)
		synctest.Wait()
		assert.Len(t, log.get(), 3, "each ends exactly once")
	})
}

// TestACallKeepsItsConversationAlive: each call that starts pushes the
// idle expiry back.
func TestACallKeepsItsConversationAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log closedLog
		c := newConversations(10, time.Minute, log.add)
		for range 10 {
			_, end := c.begin("default/c/busy", "")
			end()
			time.Sleep(50 * time.Second)
		}
		synctest.Wait()
		assert.Empty(t, log.get())
		time.Sleep(11 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"default/c/busy"}, log.get())
	})
}

// TestTheLeastRecentlyActiveConversationIsEvicted: past max live
// conversations the least recently active idle one ends; one with a call
// running is passed over.
func TestTheLeastRecentlyActiveConversationIsEvicted(t *testing.T) {
	var log closedLog
	c := newConversations(3, time.Hour, log.add)
	_, endA := c.begin("a", "") // running throughout
	for _, id := range []string{"b", "c"} {
		_, end := c.begin(id, "")
		end()
	}
	_, end := c.begin("b", "") // b is now more recent than c
	end()
	_, end = c.begin("d", "")
	end()
	assert.Equal(t, []string{"c"}, log.get(), "a runs, so c, the least recently active idle one, goes")
	_, end = c.begin("e", "")
	end()
	assert.Equal(t, []string{"c", "b"}, log.get())
	assert.Equal(t, 3, c.live())
	endA()
}

// TestASessionsConversationEndsAfterItsLastCall: the end of a legacy
// session ends its conversation once the calls in flight returned.
func TestASessionsConversationEndsAfterItsLastCall(t *testing.T) {
	var log closedLog
	c := newConversations(10, time.Hour, log.add)
	_, end := c.begin("stdio/s/x", "x")
	c.endSession("x")
	assert.Empty(t, log.get(), "a call still runs")
	end()
	assert.Equal(t, []string{"stdio/s/x"}, log.get())
	c.endSession("x")
	assert.Len(t, log.get(), 1, "once")
}

// TestTheSameIDStartsAnewAfterItsEnd: a call with the ID of an ended
// conversation starts a new one, with a new incarnation.
func TestTheSameIDStartsAnewAfterItsEnd(t *testing.T) {
	var log closedLog
	c := newConversations(1, time.Hour, log.add)
	first, end := c.begin("h", "")
	end()
	_, end = c.begin("other", "")
	end()
	require.Equal(t, []string{"h"}, log.get())
	again, end := c.begin("h", "")
	end()
	assert.NotEqual(t, first.incarnation, again.incarnation)
	assert.NotSame(t, first, again)
}

// TestTenThousandConversationsComeAndGo: conversations that come and go
// past the bound each end exactly once and leave only the bound live.
func TestTenThousandConversationsComeAndGo(t *testing.T) {
	var log closedLog
	c := newConversations(100, time.Hour, log.add)
	for i := range 10000 {
		_, end := c.begin("default/c/"+strconv.Itoa(i), "")
		end()
	}
	assert.Len(t, log.get(), 9900)
	assert.Equal(t, 100, c.live())
	c.mu.Lock()
	assert.Len(t, c.byID, 100)
	assert.Equal(t, 100, c.active.Len())
	c.mu.Unlock()
}

// TestAQuestionLimitPerMinute: at most 100 approval questions a minute per
// conversation.
func TestAQuestionLimitPerMinute(t *testing.T) {
	c := newConversations(10, time.Hour, func(string) {})
	v, end := c.begin("h", "")
	defer end()
	now := time.Now()
	for i := range approvalsPerMinute {
		require.True(t, c.allowQuestion(v, now.Add(time.Duration(i)*time.Millisecond)))
	}
	assert.False(t, c.allowQuestion(v, now.Add(time.Second)))
	assert.True(t, c.allowQuestion(v, now.Add(time.Minute)), "the first question is a minute old")
}

// TestHandles: the exact refusals of §1 rule 1, and the bytes a handle may
// have.
func TestHandles(t *testing.T) {
	for _, tc := range []struct {
		value any
		want  string
	}{
		{"thread-42_a.b:c", ""},
		{string(make([]byte, 0)), "invalid conversation handle: it is empty"},
		{42.0, "invalid conversation handle: it must be a string, not a number"},
		{nil, "invalid conversation handle: it must be a string, not null"},
		{map[string]any{}, "invalid conversation handle: it must be a string, not an object"},
		{"a b", `invalid conversation handle: byte 1 (" ") is not one of A-Z a-z 0-9 . _ : -`},
		{"é", `invalid conversation handle: byte 0 (0xc3) is not one of A-Z a-z 0-9 . _ : -`},
		{"a\nb", `invalid conversation handle: byte 1 (0x0a) is not one of A-Z a-z 0-9 . _ : -`},
		{"a/b", `invalid conversation handle: byte 1 ("/") is not one of A-Z a-z 0-9 . _ : -`},
		{string(make([]byte, 129)), "invalid conversation handle: it is 129 bytes long; the limit is 128"},
	} {
		h, err := handleOf(mcp.Meta{ConversationMetaKey: tc.value})
		if tc.want == "" {
			assert.NoError(t, err)
			assert.Equal(t, tc.value, h)
			continue
		}
		var je *jsonrpc.Error
		require.ErrorAs(t, err, &je, "%v", tc.value)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), je.Code)
		assert.Equal(t, tc.want, je.Message)
	}
	h, err := handleOf(mcp.Meta{"other": 1})
	assert.NoError(t, err)
	assert.Empty(t, h)
	long := make([]byte, 128)
	for i := range long {
		long[i] = 'x'
	}
	h, err = handleOf(mcp.Meta{ConversationMetaKey: string(long)})
	assert.NoError(t, err)
	assert.Len(t, h, 128)
}
