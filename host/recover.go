package host

import (
	"fmt"
	"runtime/debug"
)

// PanicError is a panic recovered from plugin code (host §3.3). Its message
// is `<site> panicked: <value>`, where Site is `plugin "<name>"`,
// `listener of "<event>"`, `tool "<name>"`, `disposer "<label>"` or
// `goroutine "<label>"`.
type PanicError struct {
	// Site names the code that panicked.
	Site string
	// Value is the value passed to panic.
	Value any
	// Stack is the goroutine's stack at the recovery point.
	Stack []byte
}

// Error returns `<site> panicked: <value>`.
func (e *PanicError) Error() string { return fmt.Sprintf("%s panicked: %v", e.Site, e.Value) }

// Unwrap returns the panic value when it is an error, so errors.Is sees it.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Protect calls fn and turns a panic in it into a *PanicError for site
// (host §3.3), so plugin code never takes the process down. Tool registries
// use it with site `tool "<name>"`.
func Protect(site string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Site: site, Value: v, Stack: debug.Stack()}
		}
	}()
	return fn()
}
