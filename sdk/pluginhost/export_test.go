package pluginhost

// KillPids exports killPids, the kill of a cgroup tree on kernels without cgroup.kill,
// for the tests.
var KillPids = killPids

// SetCloneIntoCgroup switches CLONE_INTO_CGROUP on or off, so that the tests take the
// path of kernels that refuse it, and returns the previous setting.
func SetCloneIntoCgroup(on bool) bool {
	was := cloneIntoCgroup
	cloneIntoCgroup = on
	return was
}

// CallsDirect reports whether the client sends its Trace and Analyze calls on the
// plugin's direct channel.
func (c *Client) CallsDirect() bool { return c.callsDirect() }

// DecodeTraceResponse exports decodeTraceResponse for the tests.
var DecodeTraceResponse = decodeTraceResponse
