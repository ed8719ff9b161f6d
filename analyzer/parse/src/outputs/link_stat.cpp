// `hccn_tool -i N -link_stat -g`: an NPU NIC's link change history, newest record first
// (hccn_tool 23.x; older drivers print `[device N]`):
//   [devid 0]current time        : Tue Oct 28 21:46:46 2025
//   [devid 0]link up count       : 2
//   [devid 0]link down count     : 1
//   [devid 0]link change records :
//   [devid 0]    Sun Oct  5 10:13:51 2025    LINK UP
//   [devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN
// Each record is an event at its own time (host clock). A LINK DOWN is a fault only when it
// lasted: a down that the next LINK UP followed within 30 s is a flap every link has at boot or
// after a switch restart. The pairing needs the whole history, so it is done here and handed to
// the signatures as a derived record (Event::derived, docs/events.md), at the DOWN record's line:
//   hccn_tool link history: device 0 LINK DOWN at Tue Oct 28 20:00:10 2025 lasted 90 s (LINK UP at
//   Tue Oct 28 20:01:40 2025) hccn_tool link history: device 0 LINK DOWN at Tue Oct 28 20:00:10
//   2025 with no LINK UP after it (current time Tue Oct 28 21:46:46 2025)
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "faultline/parse/clock.hpp"
#include "logs/common.hpp"
#include "outputs/outputs.hpp"

namespace faultline::parse::outputs {

namespace {

using logs::is_digit;

constexpr int64_t kSec = 1'000'000'000;
constexpr int64_t kFlapNs = 30 * kSec;  // longer than this is a fault (ascend-fd's bound too)
constexpr size_t kMaxRecords = 4096;    // per device
constexpr size_t kMaxDevices = 64;

// "Tue Oct 28 20:00:10 2025" at pos: a host-local civil time
bool read_stamp(std::string_view s, size_t pos, RawTime& t) {
  if (!logs::read_ctime(s, pos, t) || t.year < 1970) return false;
  t.clock = Clock::host_local;
  return true;
}

// "[devid 0]" / "[device 0]" at the start: the device id and the offset after the bracket
bool read_device(std::string_view s, int32_t& dev, size_t& after) {
  size_t p = 0;
  if (s.substr(0, 7) == "[devid ")
    p = 7;
  else if (s.substr(0, 8) == "[device ")
    p = 8;
  else
    return false;
  const size_t d0 = p;
  int64_t v = 0;
  while (p < s.size() && is_digit(s[p]) && p - d0 < 4) v = v * 10 + (s[p++] - '0');
  if (p == d0 || p >= s.size() || s[p] != ']') return false;
  dev = static_cast<int32_t>(v);
  after = p + 1;
  return true;
}

struct Record {
  RawTime time;
  int64_t ns = 0;  // naive (host-local) time
  bool up = false;
  uint32_t line = 0;
  uint64_t offset = 0;
  std::string stamp;  // the record's time as printed
};

struct Device {
  std::vector<Record> records;
  std::string now;  // "current time" as printed
  int64_t now_ns = 0;
};

class LinkStatParser final : public Parser {
 public:
  void line(std::string_view raw, const LineCtx& ctx, Sink& sink) override {
    const std::string_view text = logs::clip(logs::rtrim_blank(raw));
    int32_t dev = -1;
    size_t p = 0;
    if (!read_device(text, dev, p)) return;  // "==> NPU 0", banners, blank lines
    std::string_view rest = text.substr(p);
    Event e;
    e.line = ctx.line;
    e.offset = ctx.offset;
    e.text = text;
    e.device = dev;
    e.module = "hccn_tool";
    if (logs::starts_with(rest, "current time")) {
      const size_t c = rest.find(": ");
      RawTime t;
      if (c != std::string_view::npos && read_stamp(rest, c + 2, t)) {
        Device* d = device(dev);
        if (d != nullptr) {
          d->now = std::string(rest.substr(c + 2, 24));
          d->now_ns = clock::naive_ns(t);
        }
      }
      return;
    }
    const std::string_view body = logs::ltrim(rest);
    RawTime t;
    if (!read_stamp(body, 0, t)) return;
    const std::string_view what = logs::trim_blank(body.substr(24));
    if (what != "LINK UP" && what != "LINK DOWN") return;
    e.time = t;
    e.message = body;
    sink.event(e);
    Device* d = device(dev);
    if (d == nullptr || d->records.size() >= kMaxRecords) return;
    d->records.push_back(Record{t, clock::naive_ns(t), what == "LINK UP", ctx.line, ctx.offset,
                                std::string(body.substr(0, 24))});
  }

  void finish(Sink& sink) override {
    for (auto& [dev, d] : devices_) {
      // oldest first; records of one second keep their printed order reversed (newest first)
      std::vector<Record> rs(d.records.rbegin(), d.records.rend());
      std::stable_sort(rs.begin(), rs.end(),
                       [](const Record& a, const Record& b) { return a.ns < b.ns; });
      for (size_t i = 0; i < rs.size(); ++i) {
        if (rs[i].up) continue;
        const Record& down = rs[i];
        const Record* up = nullptr;
        for (size_t j = i + 1; j < rs.size() && up == nullptr; ++j)
          if (rs[j].up) up = &rs[j];
        std::string msg =
            "hccn_tool link history: device " + std::to_string(dev) + " LINK DOWN at " + down.stamp;
        if (up != nullptr) {
          const int64_t lasted = up->ns - down.ns;
          if (lasted <= kFlapNs) continue;
          msg += " lasted " + std::to_string(lasted / kSec) + " s (LINK UP at " + up->stamp + ")";
        } else {
          // still down when the history was read (once per device: the last LINK DOWN); a down
          // too recent to tell is not judged
          if (i + 1 < rs.size() || d.now_ns == 0 || d.now_ns - down.ns <= kFlapNs) continue;
          msg += " with no LINK UP after it (current time " + d.now + ")";
        }
        Event e =
            derived_record(LineCtx{down.line, down.offset}, "hccn_tool", Severity::warning, msg);
        e.time = down.time;
        e.device = dev;
        sink.event(e);
      }
    }
    devices_.clear();
  }

 private:
  Device* device(int32_t dev) {
    auto it = devices_.find(dev);
    if (it != devices_.end()) return &it->second;
    if (devices_.size() >= kMaxDevices) return nullptr;
    return &devices_[dev];
  }

  std::map<int32_t, Device> devices_;
};

}  // namespace

std::unique_ptr<Parser> make_link_stat(std::string_view /*path*/) {
  return std::make_unique<LinkStatParser>();
}

}  // namespace faultline::parse::outputs
