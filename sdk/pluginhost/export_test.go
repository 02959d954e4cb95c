package pluginhost

// KillPids exports killPids, the kill of a cgroup tree on kernels without cgroup.kill,
// for the tests.
var KillPids = killPids
