// mountinfo: /proc/<pid>/mountinfo (proc(5) format), /proc/mounts, `mount`. Seed 002: an empty
// host toolkit directory bind-mounted over the image's toolkit path.
#include "test_outputs_util.hpp"

using namespace fltest;

namespace {
const char* kMountinfo =
    "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
    "1382 1212 0:227 / / rw,relatime master:396 - overlay overlay "
    "rw,lowerdir=/var/lib/docker/overlay2/l/AB:/var/lib/docker/overlay2/l/CD,upperdir=/var/lib/"
    "docker/"
    "overlay2/abc/diff,workdir=/var/lib/docker/overlay2/abc/work\n"
    "1405 1382 253:0 /data/empty-toolkit /usr/local/Ascend/ascend-toolkit rw,relatime - ext4 "
    "/dev/mapper/ubuntu--vg-ubuntu--lv rw\n"
    "1500 1382 0:50 / /mnt/my\\040disk rw - tmpfs tmpfs rw\n";
}  // namespace

TEST_CASE("mountinfo: mounts and bind mounts", "[parse][outputs][mountinfo]") {
  for (const std::string& text : {std::string(kMountinfo), crlf(kMountinfo)}) {
    const auto r = run("mountinfo", text, "proc/1/mountinfo");
    INFO(dump(r));
    check_facts(r,
                {{"mount./mnt2", "root=/mnt1 source=/dev/root fstype=ext3 opts=rw,noatime", 1},
                 {"mount./usr/local/Ascend/ascend-toolkit",
                  "root=/data/empty-toolkit source=/dev/mapper/ubuntu--vg-ubuntu--lv fstype=ext4 "
                  "opts=rw,relatime",
                  3},
                 {"mount./mnt/my disk", "root=/ source=tmpfs fstype=tmpfs opts=rw", 4}});
    CHECK(values(r, "mount./").size() == 1);
    REQUIRE(r.events.size() == 1);  // the bind mount over an Ascend path
    CHECK(r.events[0].line == 3);
    CHECK(r.events[0].keep);
    CHECK(r.malformed == 0);
  }
}

TEST_CASE("mountinfo: /proc/mounts and mount output", "[parse][outputs][mountinfo]") {
  const auto r = run("mountinfo",
                     "overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/AB 0 0\n"
                     "/dev/sda1 on /boot type ext4 (rw,relatime)\n");
  INFO(dump(r));
  check_facts(r, {{"mount./",
                   "root=? source=overlay fstype=overlay "
                   "opts=rw,relatime,lowerdir=/var/lib/docker/overlay2/l/AB",
                   1},
                  {"mount./boot", "root=? source=/dev/sda1 fstype=ext4 opts=rw,relatime", 2}});
  CHECK(r.events.empty());
}
