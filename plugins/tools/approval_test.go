package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/dsh-go/dsh/plugins/tools"
)

func TestTheApprovalChannelIsTheSessions(t *testing.T) {
	var nilExec *tools.Exec
	assert.Nil(t, nilExec.Ask())
	assert.Nil(t, (&tools.Exec{}).Ask(), "no session, no channel")
	assert.Nil(t, (&tools.Exec{Conv: &tools.Conversation{ID: "s"}}).Ask(), "a session without a channel")
	ask := func(context.Context, string) (tools.Answer, error) { return tools.Declined, nil }
	got := (&tools.Exec{Conv: &tools.Conversation{ID: "s", Ask: ask}}).Ask()
	if assert.NotNil(t, got) {
		a, err := got(t.Context(), "q")
		assert.NoError(t, err)
		assert.Equal(t, tools.Declined, a)
	}
	assert.Equal(t, []string{"approved", "declined", "cancelled", "unknown"},
		[]string{tools.Approved.String(), tools.Declined.String(), tools.Cancelled.String(), tools.Answer(0).String()})
}
