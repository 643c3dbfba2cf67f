// Package config turns a deployment description into the ordered list of
// plugin entries dshhost mounts (host §3.7, style §2.3). A deployment is a
// YAML, JSON or TOML file (or the built-in default, deployment.go) with a
// `workspace` and a `plugins` list of entries
// `{id, name, disabled, config}`. Layers, in increasing priority: the file,
// `DSH_` environment variables, then flags (`--workspace`, `--disable ID`,
// `--set ID.key=value`); they are merged with koanf v2.
//
// Loading is strict and all-or-nothing: an unknown plugin name, an unknown
// key, a value of the wrong type or a duplicate id is an [Error] naming the
// source (file, variable or flag) and the key path (`plugins[2].config.readLimit`),
// and nothing starts. Each entry's config is decoded into its plugin's typed
// config and validated before any plugin is applied.
//
// This package is the one config decoder (host §3.7): [Decode] decodes a
// plugin section strictly onto the plugin's defaults (through koanf's
// unmarshal with mapstructure's ErrorUnused) and runs the plugin's own
// Validate; the host receives typed values only. A plugin's config needs
// nothing beyond its typed struct (json tags name the keys), an optional
// Defaults and an optional Validate, which also words the message for a
// value the decoder cannot fill. The files hold one layer each: file.go,
// env.go, flags.go, workspace.go; load.go merges them and decodes.
//
// Load builds everything fresh on every call, so a reload (`dshhost serve
// --watch`) is Load again: keys removed from the file are gone, and env,
// flags and the workspace layer over it exactly as at start.
//
// The package imports only the host: plugins are found by name in the
// compile-time registry (host.Lookup).
package config
