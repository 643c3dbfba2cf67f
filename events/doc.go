// Package events declares the event contract between the filesystem
// plugins (contract §1.1): the waterfalls [FSWriteIntent], [FSEditIntent] and
// [FSRemoveIntent], which decide a write's intent, an edit's guard and a
// removal's guard, and the emit
// [FSObserved], which reports what a tool call saw of a file. The tools
// dispatch them; policies such as fspolicy listen. It also declares
// [ConfigReloadFailed], which dshhost emits when a config reload is refused.
//
// It imports fsapi (payloads carry fsapi.Target) and host (the dispatch
// modes); fsapi never imports it.
package events
