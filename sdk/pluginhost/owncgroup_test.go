package pluginhost

import (
	"strings"
	"testing"
)

func TestOwnCgroupIsFoundUnderTheCgroup2Mount(t *testing.T) {
	v1 := "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	tests := []struct {
		name, cgroups, mounts string
		dirs                  []string // directories that exist
		want, wantErr         string
	}{
		{"hybrid", "4:memory:/x\n0::/\n", v1 + "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
			[]string{"/sys/fs/cgroup/unified"}, "/sys/fs/cgroup/unified", ""},
		{"pure v2 under systemd", "0::/system.slice/tracecraft.service\n",
			"25 22 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n",
			[]string{"/sys/fs/cgroup/system.slice/tracecraft.service"}, "/sys/fs/cgroup/system.slice/tracecraft.service", ""},
		{"a container's mount of its own subtree", "0::/docker/abc/sub\n",
			"25 22 0:22 /docker/abc /sys/fs/cgroup ro,relatime - cgroup2 cgroup2 rw\n",
			[]string{"/sys/fs/cgroup/sub"}, "/sys/fs/cgroup/sub", ""},
		{"a mount root that is a sibling, not a parent", "0::/docker/abcd\n",
			"25 22 0:22 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			[]string{"/sys/fs/cgroup/d", "/sys/fs/cgroupd"}, "", "not visible"},
		{"an escaped mount point", "0::/\n", "40 30 0:37 / /srv/cg\\040two rw - cgroup2 none rw\n",
			[]string{"/srv/cg two"}, "/srv/cg two", ""},
		{"cgroup v1 only", "4:memory:/x\n1:cpu:/\n", v1, nil, "", "cgroup v1 only"},
		{"no cgroup2 mounted", "0::/\n", v1, nil, "", "no cgroup2 file system is mounted"},
		{"outside the cgroup namespace", "0::/../../user.slice\n", "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			[]string{"/sys/fs/cgroup"}, "", "outside its cgroup namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ownCgroup(tt.cgroups, tt.mounts, func(d string) bool {
				for _, e := range tt.dirs {
					if e == d {
						return true
					}
				}
				return false
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
