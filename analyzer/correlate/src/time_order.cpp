// Time comparison of the rule evaluator: when a fact happened (fact_time) and the `time_order`
// condition (docs/diagnoses.md "Times", docs/clock.md "Boot time"). Kept apart from eval.cpp:
// every diagnosis that orders two times goes through here.
#include <algorithm>
#include <tuple>

#include "eval.hpp"
#include "faultline/core/text.hpp"
#include "faultline/core/time.hpp"

namespace faultline::correlate::detail {

std::optional<Evaluator::When> Evaluator::fact_time(const FactRow& f) {
  if (f.name == "host.boot_time" || f.name == "driver.load_time") {  // epoch seconds, UTC
    if (auto v = text::to_int<int64_t>(text::trim(f.value)))
      return When{*v * 1'000'000'000, false, "exact"};
  }
  const auto& j = json_of(f);
  if (j.is_object() && j.contains("time") && j["time"].is_string()) {
    if (auto t = parse_local_civil(j["time"].get<std::string>())) return When{*t, true, "local"};
  }
  if (auto t = parse_local_civil(f.value)) return When{*t, true, "local"};
  if (auto et = lines_.event_time(f.member_id, f.line); et && et->time_ns)
    return When{*et->time_ns, false, et->quality};
  return std::nullopt;
}

std::vector<Evaluator::Match> Evaluator::m_time_order(const Node& n, const Env& env,
                                                      std::vector<std::string>& notes) {
  struct Item {
    int64_t ns = 0;
    bool local = false;
    bool assumed = false;
    size_t ev = 0;
    Binding b;
    int rank = 2;        // facts: 0 /proc/stat, 1 uptime, 2 other sources (latest: the one cited)
    bool other = false;  // a fact of a later-listed name (a driver reload beside the boots):
                         // newer than the boots by design, no disagreement among sources
    clock::LocalZone zone;  // host-local items: the zone in force when written (data.hpp)
  };
  // UTC of an item: a host-local one moved by its zone (read as UTC when the zone is not known)
  auto utc_of = [](const Item& x) { return x.local ? x.ns + x.zone.offset_ns.value_or(0) : x.ns; };
  // Whether the order of two items is pinned: two host-local times of one zone span (or both of
  // known zones), a host-local time of known zone against a UTC one, two UTC times; a hit read
  // with an unknown zone orders only against host-local times of unknown zone.
  auto pinned = [](const Item& x, const Item& y) {
    if (x.local && y.local)
      return x.zone.span == y.zone.span || (x.zone.offset_ns && y.zone.offset_ns);
    if (x.local || y.local) {
      const Item& l = x.local ? x : y;
      const Item& o = x.local ? y : x;
      return o.assumed ? !l.zone.offset_ns : l.zone.offset_ns.has_value();
    }
    return x.assumed == y.assumed;
  };
  auto items = [&](const TimeRef& r) {
    std::vector<Item> v;
    if (r.kind == TimeRef::Kind::hit) {
      for (const auto& sig : r.names) {
        auto it = host_.hits.find(sig);
        if (it == host_.hits.end()) continue;
        for (const auto* h : it->second) {
          if (!h->time_ns || !pred_ok(r.where, *h, env)) continue;
          v.push_back({*h->time_ns, false, h->time_quality == "assumed_utc", ev_hit(*h),
                       bind_hit(*h), 2, false, clock::LocalZone{}});
        }
      }
    } else if (r.kind == TimeRef::Kind::fact) {
      std::vector<std::string> stars;
      std::vector<const FactRow*> rows;
      size_t first_name_rows = 0;
      for (const auto& name : r.names) {  // every listed fact: the latest of several sources
        std::vector<std::string> st;
        auto rs = facts_named(subst(name, env), false, &st);
        rows.insert(rows.end(), rs.begin(), rs.end());
        stars.insert(stars.end(), st.begin(), st.end());
        if (&name == &r.names.front()) first_name_rows = rows.size();
      }
      for (size_t i = 0; i < rows.size(); ++i) {
        if (!pred_ok(r.where, *rows[i], env)) continue;
        auto w = fact_time(*rows[i]);
        if (!w) continue;
        v.push_back({w->ns, w->local, w->quality == "assumed_utc", ev_fact(*rows[i]),
                     bind_fact(*rows[i], stars[i]),
                     rows[i]->kind == "proc_stat" ? 0 : (rows[i]->kind == "uptime" ? 1 : 2),
                     i >= first_name_rows,
                     w->local ? host_.zone_at(w->ns, rows[i]->kind) : clock::LocalZone{}});
      }
    } else {
      auto it = env.vars.find(r.names.front());
      if (it != env.vars.end()) {
        const auto& f = it->second.fields;
        auto t = f.find("_time_ns");
        if (t != f.end()) {
          auto ns = text::to_int<int64_t>(t->second);
          auto l = f.find("_time_local");
          const bool local = l != f.end() && l->second == "1";
          if (ns)
            v.push_back({*ns, local, false, SIZE_MAX, it->second, 2, false,
                         local ? host_.zone_at(*ns) : clock::LocalZone{}});
        }
      }
    }
    return v;
  };
  auto a = items(n.first);
  auto b = items(n.then);
  // Counter-evidence of "after the latest": a source of `first` (a boot) at or after an item of
  // `then` (an install) in the same clock, or in clocks a stated zone pins, orders them for
  // certain, whatever the other sources say; such an item is not after the latest. Times of
  // different clocks whose zone is not pinned (a UTC driver-load line, a host-local install log,
  // the zone assumed) are never used to overrule it.
  if (n.first.latest && !a.empty()) {
    const auto gap0 = static_cast<int64_t>(n.min_gap_s * 1e9);
    std::vector<Item> kept;
    for (auto& y : b) {
      const Item* later = nullptr;
      for (const auto& x : a)
        if (pinned(x, y) && utc_of(y) - utc_of(x) <= gap0) later = &x;
      if (later == nullptr) {
        kept.push_back(std::move(y));
        continue;
      }
      auto fm = later->b.fields.find("member");
      auto fl = later->b.fields.find("line");
      auto ym = y.b.fields.find("member");
      auto yl = y.b.fields.find("line");
      std::string note = "counter-evidence: " + n.first.names.front() + " at " +
                         format_utc(later->ns) + (later->local ? " (host-local)" : "") + " (" +
                         (fm != later->b.fields.end() ? fm->second : "") +
                         (fl != later->b.fields.end() ? ":" + fl->second : "") +
                         ") is not before " + format_utc(y.ns) + (y.local ? " (host-local)" : "") +
                         " (" + (ym != y.b.fields.end() ? ym->second : "") +
                         (yl != y.b.fields.end() ? ":" + yl->second : "") + ") in the same clock";
      if (notes.size() < 16) notes.push_back(std::move(note));
    }
    b = std::move(kept);
  }
  bool disagree = false;  // latest: sources named different boots; the order counts less
  if (n.first.latest && a.size() > 1) {
    // compare in UTC: host-local items moved by their zone (0 when not known)
    const auto& utc = utc_of;
    size_t newest = 0;
    for (size_t i = 1; i < a.size(); ++i)
      if (utc(a[i]) > utc(a[newest])) newest = i;
    constexpr int64_t kSame = 120'000'000'000LL;  // sources within 2 min name the same boot
    const int64_t last = utc(a[newest]);
    // of the sources that agree, the most exact one is cited: /proc/stat btime, then uptime -s,
    // then the earliest (who -b, journal, dmesg -T and the driver's load come after the kernel's
    // start)
    size_t pick = newest;
    for (size_t i = 0; i < a.size(); ++i) {
      if (last - utc(a[i]) > kSame) continue;
      if (std::tie(a[i].rank, a[i].ns) < std::tie(a[pick].rank, a[pick].ns)) pick = i;
    }
    newest = pick;
    std::vector<std::string> older;
    for (size_t i = 0; i < a.size(); ++i) {
      if (last - utc(a[i]) <= kSame || a[i].other) continue;
      auto m = a[i].b.fields.find("member");
      auto l = a[i].b.fields.find("line");
      older.push_back(format_utc(utc(a[i])) + " (" + (m != a[i].b.fields.end() ? m->second : "") +
                      (l != a[i].b.fields.end() ? ":" + l->second : "") + ")");
    }
    if (!older.empty()) {
      disagree = true;
      std::string note = "sources disagree on " + n.first.names.front() + ": the newest, " +
                         format_utc(last) + ", is used; older: ";
      for (size_t i = 0; i < older.size() && i < 4; ++i) note += (i ? ", " : "") + older[i];
      if (older.size() > 4) note += ", ...";
      notes.push_back(note);
    }
    Item keep = std::move(a[newest]);
    a.clear();
    a.push_back(std::move(keep));
  }
  std::vector<Match> out;
  const auto gap = static_cast<int64_t>(n.min_gap_s * 1e9);
  bool assumed_zone = false;
  for (const auto& y : b) {
    for (const auto& x : a) {
      // same-span host-local times compare as printed; any other pair in UTC
      const bool naive = x.local && y.local && x.zone.span == y.zone.span;
      const int64_t xs = naive ? x.ns : utc_of(x), ys = naive ? y.ns : utc_of(y);
      const bool assumed = x.assumed || y.assumed || !pinned(x, y);
      if (ys - xs <= gap) continue;
      Binding bb = y.b;
      if (assumed) {
        bb.fields["_uncertain"] = "1";
        assumed_zone = true;
      }
      std::vector<size_t> ev;
      if (x.ev != SIZE_MAX) ev.push_back(x.ev);
      if (y.ev != SIZE_MAX) ev.push_back(y.ev);
      out.push_back({std::move(bb), std::move(ev)});
      break;  // one earlier item is enough for this later one
    }
  }
  if (assumed_zone && std::all_of(out.begin(), out.end(), [](const Match& m) {
        return m.binding.fields.count("_uncertain") != 0;
      }))
    notes.push_back(
        host_.zones.zone_spans.empty()
            ? "time order rests on an assumed host time zone (UTC): the bundle states none"
            : "time order rests on a host-local time written where the bundle does not show the "
              "zone in force (the host's zone changed within the bundle; docs/clock.md)");
  else
    for (auto& m : out) m.binding.fields.erase("_uncertain");
  if (disagree)
    for (auto& m : out) m.binding.fields["_uncertain"] = "1";
  return out;
}

}  // namespace faultline::correlate::detail
