// Package host runs plugins: a small runtime modelled on Cordis v4
// (host.md). It knows nothing of files or tools: plugins meet only through
// the services and events other packages declare. It imports nothing of
// this module; the contract packages (events, plugins/fsapi, plugins/tools)
// declare their keys and event descriptors with it, cmd boots deployments
// on a [Host], and the mcp plugin serves a host's tool registry.
//
// # Plugins, instances and scopes
//
// A [Plugin] is made once with [Define]: a name, the services it injects
// ([Inject]) and may use ([Optional]), a config type and
// an apply function. Every mount of it ([Scope.Plugin], [Host.Plugin]) is an
// [Instance]; each activation of an instance has a [Scope], the ownership
// handle through which it registers listeners, services ([Key.Provide]),
// child plugins, effects ([Scope.Effect]) and goroutines ([Scope.Go]).
// Everything registered through a scope is torn down newest first when the
// activation ends. A disposed scope refuses registrations with [ErrInactive].
//
// # Lifecycle
//
// Instances move through PENDING, LOADING, ACTIVE, FAILED, UNLOADING and
// DISPOSED ([State]). An instance whose injected services are missing waits
// in PENDING, with no error, and loads as soon as every provider is ACTIVE,
// whatever the mount order. When a provider goes away its dependents are
// unloaded first, back to PENDING, and start again with the next provider. An
// error or panic in apply makes the instance FAILED, rolls back what apply
// registered and leaves the rest running. Every instance ends DISPOSED.
// Config arrives typed (decoding files, env and flags is the config
// package's) and is validated before apply ([Plugin.CheckConfig]). An
// activation may take a config change in place ([OnUpdate]) instead of
// restarting.
//
// # Events
//
// Event descriptors are typed values declared by contract packages:
// [Notify] (Emit: every listener runs, failures joined; carried by
// github.com/asaskevich/EventBus behind the fence in bus.go), [Chain]
// (Waterfall: nested middleware with a position-bound next and a default).
// Those are the only dispatch modes: Cordis's parallel and serial ones, once
// and priorities are not offered, as no plugin needs them (host §2.2).
// Dispatch iterates a copy-on-write snapshot; listeners may emit, register
// or dispose re-entrantly.
//
// # Concurrency
//
// Every exported method is safe for concurrent use. No host lock is held
// while plugin code (apply, disposers, listeners, hooks) runs, and every call
// into plugin code recovers panics as a [PanicError].
package host
