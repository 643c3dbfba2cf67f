package stacktest

import "net/http"

// Bearer is an http.RoundTripper that adds `Authorization: Bearer <Token>`
// to every request and passes it to Next: an MCP client of `serve --http`.
type Bearer struct {
	Token string
	Next  http.RoundTripper
}

// RoundTrip sends a copy of r with the token.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	return b.Next.RoundTrip(r)
}
