package fslocal

// UseWorkspace gives an entry that leaves them unset the deployment's
// workspace as its cwd and its confinement root (contract §3.10: in dshhost
// every fslocal entry that leaves root unset is confined to the workspace; set
// root to "/" to serve without confinement). It implements
// config.WorkspaceUser.
func (c *Config) UseWorkspace(dir string) {
	if c.Cwd == "" {
		c.Cwd = dir
	}
	if c.Root == "" {
		c.Root = dir
	}
}

// PathKeys names the keys that hold paths, so that a deployment file's
// relative `root:` or `cwd:` is taken against the file's directory, as its
// `workspace:` is. It implements config.PathKeyer.
func (c *Config) PathKeys() []string { return []string{"cwd", "root"} }
