#include "faultline/parse/env_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "faultline/core/text.hpp"

namespace faultline::parse {

namespace {

constexpr size_t kMaxReadings = 256;    // per optical answer
constexpr size_t kMaxEntries = 256;     // devices, buses, boards per file
constexpr size_t kMaxField = 96;        // longer keys and values are no answer of these tools
constexpr size_t kMaxPairFiles = 1024;  // environment-check files remembered per bundle
constexpr std::string_view kModule = "npu_info";

// Atlas 900 PoD boards: their NPU ports reach the switch without an optical module of their own,
// so the module queries read "not present" and empty powers on every healthy node (the vendor's
// environment check skips them too).
bool pod_board(std::string_view id) {
  const std::string b = text::to_lower(id);
  return b == "0x30" || b == "0x31" || b == "0x32" || b == "0x34";
}

// `-i N` of a command's words
int option_int(const std::vector<std::string_view>& w, std::string_view opt) {
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == opt)
      if (auto v = text::to_int<int>(w[i + 1]); v && *v >= 0 && *v < 4096) return *v;
  return -1;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool has_word(const std::vector<std::string_view>& w, std::string_view x) {
  return std::find(w.begin(), w.end(), x) != w.end();
}

// "key : value" / "key:value" (optical and npu-smi answers; keys may hold spaces)
bool key_value(std::string_view s, std::string_view& key, std::string_view& value) {
  const size_t c = s.find(':');
  if (c == std::string_view::npos || c == 0) return false;
  key = text::trim(s.substr(0, c));
  value = text::trim(s.substr(c + 1));
  return !key.empty() && key.size() <= kMaxField && value.size() <= kMaxField;
}

// "0.0054 mW" -> 0.0054; nullopt when the value is not a number of milliwatts
std::optional<double> milliwatts(std::string_view v) {
  if (v.size() < 4 || v.substr(v.size() - 3) != " mW") return std::nullopt;
  const std::string num(text::trim(v.substr(0, v.size() - 3)));
  if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return std::nullopt;
  return d;
}

// "3d:00.0 Processing accelerators: Huawei ..." / "0000:3d:00.0 ..." -> "3d:00.0"
std::string bdf_of(std::string_view s) {
  std::string_view w = s.substr(0, s.find(' '));
  if (w.size() == 12 && w[4] == ':') w.remove_prefix(5);
  if (w.size() != 7 || w[2] != ':' || w[5] != '.') return {};
  for (size_t i : {0U, 1U, 3U, 4U, 6U})
    if (std::isxdigit(static_cast<unsigned char>(w[i])) == 0) return {};
  return text::to_lower(w);
}

std::string side_of(std::string_view path) {
  const std::string_view base = path.substr(path.rfind('/') + 1);
  if (base == "npu_info_before.txt") return "before";
  if (base == "npu_info_after.txt") return "after";
  return {};
}

}  // namespace

std::optional<EnvCards> EnvCheckPairs::exchange(const std::string& dir, const std::string& side,
                                                const EnvCards& cards) {
  const std::lock_guard<std::mutex> lock(mu_);
  if (seen_.size() >= kMaxPairFiles && seen_.count({dir, side}) == 0) return std::nullopt;
  seen_[{dir, side}] = cards;
  const auto it = seen_.find({dir, side == "before" ? "after" : "before"});
  if (it == seen_.end()) return std::nullopt;
  return it->second;
}

EnvCheck::EnvCheck(std::string member_path, EnvCheckPairs* pairs)
    : path_(std::move(member_path)), pairs_(pairs) {
  const size_t slash = path_.rfind('/');
  dir_ = slash == std::string::npos ? std::string() : path_.substr(0, slash);
  side_ = side_of(path_);
  cards_.path = path_;
}

void EnvCheck::section(std::string_view title, const LineCtx& ctx) {
  end_section();
  auto w = text::split_ws(title);
  while (!w.empty() && (w.front() == "sudo" || w.front() == "timeout")) w.erase(w.begin());
  if (w.empty()) return;
  const std::string_view prog = w[0].substr(w[0].rfind('/') + 1);
  npu_ = option_int(w, "-i");
  title_ = std::string(title);
  title_ctx_ = ctx;
  answer_lines_ = 0;
  if (prog == "hccn_tool" && npu_ >= 0 && has_word(w, "-g")) {
    if (has_word(w, "-optical")) cmd_ = Cmd::optical;
    if (has_word(w, "-ip")) cmd_ = Cmd::ip;
  } else if (prog == "npu-smi" && w.size() >= 2 && w[1] == "info") {
    const size_t t = static_cast<size_t>(std::find(w.begin(), w.end(), "-t") - w.begin());
    const std::string_view type = t + 1 < w.size() ? w[t + 1] : std::string_view();
    if (type == "board" && npu_ >= 0) cmd_ = Cmd::board;
    if (type == "usages" && npu_ >= 0) cmd_ = Cmd::usages;
    if (w.size() == 2) cmd_ = Cmd::smi_info;
    if (w.size() == 3 && (w[2] == "-m" || w[2] == "-l")) cmd_ = Cmd::smi_list;
  } else if (prog == "lspci" && !has_word(w, "-s")) {
    cmd_ = Cmd::lspci;  // a listing of every function (`-s <bdf>` asks for one)
  }
  if (cmd_ == Cmd::optical && optical_.size() < kMaxEntries) optical_[npu_].title = ctx;
  if (cmd_ == Cmd::ip && ip_.size() < kMaxEntries) ip_[npu_].title = ctx;
}

void EnvCheck::line(std::string_view raw, const LineCtx& ctx) {
  if (cmd_ == Cmd::none) return;
  const std::string_view s = text::trim(raw);
  if (s.empty()) return;
  ++answer_lines_;
  std::string_view key, value;
  switch (cmd_) {
    case Cmd::optical: {
      auto it = optical_.find(npu_);
      if (it == optical_.end() || it->second.readings.size() >= kMaxReadings) return;
      if (key_value(s, key, value))
        it->second.readings.push_back({std::string(key), std::string(value), ctx});
      return;
    }
    case Cmd::ip: {
      auto it = ip_.find(npu_);
      // `ipaddr:192.161.200.10`, `ipaddr:fe80::1c01:3c0` (one address is enough; the netmask
      // follows it). key_value splits at the first colon: the IPv6 value keeps its own.
      if (it != ip_.end() && key_value(s, key, value) && key == "ipaddr" &&
          value.find_first_of(".:") != std::string_view::npos &&
          std::isxdigit(static_cast<unsigned char>(value.front())) != 0)
        it->second.address = true;
      return;
    }
    case Cmd::board:
      if (starts_with(s, "Invalid card id")) {
        if (invalid_card_.size() < kMaxEntries) invalid_card_.emplace(npu_, ctx);
        return;
      }
      if (!key_value(s, key, value)) return;
      if (key == "Board ID" && boards_.size() < kMaxEntries) boards_.insert(std::string(value));
      if (key == "Chip Name" && !value.empty() && value != "NA" && chip_.size() < kMaxEntries)
        chip_[npu_] = std::string(value);
      if (key == "PCIe Bus Info" && cards_.bus_of.size() < kMaxEntries) {
        const std::string b = bdf_of(value);
        if (!b.empty()) cards_.bus_of.emplace(b, EnvCards::Place{ctx, npu_});
      }
      return;
    case Cmd::usages:
      if (key_value(s, key, value) && key == "HBM Capacity(MB)" && hbm_.size() < kMaxEntries)
        hbm_.emplace(npu_, std::make_pair(std::string(value), ctx));
      return;
    case Cmd::smi_list: {
      // `0   0   0   Ascend 910A` (NPU ID, Chip ID, Chip Logic ID, Chip Name)
      const auto c = text::split_ws(s);
      if (c.size() < 4 || c.size() > 8 || chip_.size() >= kMaxEntries) return;
      const auto id = text::to_int<int>(c[0]);
      if (!id || *id < 0) return;
      std::string name(c.back().substr(0, kMaxField));
      if (chip_.count(*id) == 0 && std::isdigit(static_cast<unsigned char>(name.front())) != 0)
        chip_[*id] = name;
      return;
    }
    case Cmd::lspci: {
      // the NPU functions: Huawei's processing accelerators (`lspci | grep acce`, `lspci -d 19e5:`)
      if (!text::icontains(s, "accelerator") && !text::icontains(s, "huawei") &&
          !text::icontains(s, "19e5:"))
        return;
      const std::string b = bdf_of(s);
      if (b.empty() || cards_.lspci.size() >= kMaxEntries) return;
      if (!cards_.has_lspci) cards_.lspci_ctx = title_ctx_;
      cards_.has_lspci = true;
      cards_.lspci.emplace(b, ctx);
      return;
    }
    default:
      return;
  }
}

void EnvCheck::end_section() {
  if (cmd_ == Cmd::smi_info && answer_lines_ == 0 && silent_smi_.size() < kMaxEntries)
    silent_smi_.push_back(title_ctx_);
  cmd_ = Cmd::none;
}

void EnvCheck::emit(Sink& sink, const LineCtx& ctx, int npu, const std::string& msg, Severity sev) {
  Event e = derived_record(ctx, kModule, sev, msg);
  e.device = npu;
  sink.event(e);
}

void EnvCheck::judge_optical(Sink& sink) {
  if (std::any_of(boards_.begin(), boards_.end(),
                  [](const std::string& b) { return pod_board(b); }))
    return;
  for (const auto& [npu, o] : optical_) {
    const std::string head = "hccn_tool -i " + std::to_string(npu) + " -optical -g: ";
    std::map<std::string, double> thres;  // "TxPower High Thres" -> mW
    for (const auto& r : o.readings)
      if (r.key.find("Power") != std::string::npos && r.key.find("Thres") != std::string::npos)
        if (auto v = milliwatts(r.value)) thres[r.key] = *v;
    const Reading* power = nullptr;
    const Reading* los = nullptr;
    const Reading* lol = nullptr;
    double lo = 0, hi = 0;
    for (const auto& r : o.readings) {
      if (r.key == "present" && text::to_lower(r.value) == "not present")
        emit(sink, r.ctx, npu, head + "optical module not present", Severity::error);
      const bool tx = starts_with(r.key, "Tx Power");
      const bool rx = starts_with(r.key, "Rx Power");
      if ((tx || rx) && power == nullptr) {
        const std::string side = tx ? "TxPower" : "RxPower";
        const auto l = thres.find(side + " Low Thres");
        const auto h = thres.find(side + " High Thres");
        const auto v = milliwatts(r.value);
        // a module without power monitoring (copper cable) reports zero thresholds: no range
        if (v && l != thres.end() && h != thres.end() && h->second > l->second &&
            (*v < l->second || *v > h->second)) {
          power = &r;
          lo = l->second;
          hi = h->second;
        }
      }
      const bool flag_set = r.value != "0x0" && r.value != "0" && r.value != "NA" &&
                            r.value != "0x00" && !r.value.empty();
      if ((r.key == "Tx Los Flag" || r.key == "Rx Los Flag") && flag_set && los == nullptr)
        los = &r;
      if ((r.key == "Tx LoL Flag" || r.key == "Rx LoL Flag") && flag_set && lol == nullptr)
        lol = &r;
    }
    if (power != nullptr) {
      char buf[96];
      std::snprintf(buf, sizeof buf, " (thresholds %g mW to %g mW)", lo, hi);
      emit(sink, power->ctx, npu,
           head + power->key + " " + power->value + " outside the module's thresholds" + buf,
           Severity::error);
    }
    if (los != nullptr)
      emit(sink, los->ctx, npu, head + los->key + " " + los->value + " (loss of signal)",
           Severity::error);
    if (lol != nullptr)
      emit(sink, lol->ctx, npu, head + lol->key + " " + lol->value + " (loss of lock)",
           Severity::error);
  }
}

void EnvCheck::judge_cards(Sink& sink) {
  for (const auto& [npu, ctx] : invalid_card_)
    emit(sink, ctx, npu,
         "npu-smi info -i " + std::to_string(npu) + " -t board: Invalid card id.: NPU " +
             std::to_string(npu) + " is not visible to npu-smi (card dropped)",
         Severity::error);
  // the board query's bus ids that lspci no longer lists: in this file, else in the other file
  // of the before/after pair
  std::optional<EnvCards> other;
  if (pairs_ != nullptr && !side_.empty()) other = pairs_->exchange(dir_, side_, cards_);
  std::set<std::string> reported;
  const auto drop = [&](const std::string& bdf, const LineCtx& at, int npu,
                        const std::string& why) {
    if (!reported.insert(bdf).second) return;
    const std::string who =
        npu >= 0 ? "NPU " + std::to_string(npu) + " (PCIe " + bdf + ")" : "the NPU at PCIe " + bdf;
    emit(sink, at, npu, "lspci: " + who + " " + why + " (card dropped off the PCIe bus)",
         Severity::error);
  };
  if (cards_.has_lspci)
    for (const auto& [bdf, place] : cards_.bus_of)
      if (cards_.lspci.count(bdf) == 0)
        drop(bdf, cards_.lspci_ctx, place.npu, "is missing from lspci");
  if (!other || !other->has_lspci || !cards_.has_lspci) return;
  const bool after = side_ == "after";
  const EnvCards& before_cards = after ? *other : cards_;
  const EnvCards& after_cards = after ? cards_ : *other;
  const std::string other_name = other->path.substr(other->path.rfind('/') + 1);
  for (const auto& [bdf, line] : before_cards.lspci) {
    if (after_cards.lspci.count(bdf) != 0) continue;
    int npu = -1;
    for (const EnvCards* c : {&cards_, &*other})
      if (auto it = c->bus_of.find(bdf); it != c->bus_of.end() && npu < 0) npu = it->second.npu;
    if (after)
      drop(bdf, cards_.lspci_ctx, npu, "is missing from lspci (listed in " + other_name + ")");
    else
      drop(bdf, line, npu, "is listed here but missing from lspci in " + other_name);
  }
}

void EnvCheck::finish(Sink& sink) {
  end_section();
  judge_optical(sink);
  for (const auto& [npu, ip] : ip_)
    if (!ip.address)
      emit(sink, ip.title, npu,
           "hccn_tool -i " + std::to_string(npu) +
               " -ip -g: no IP address configured on the NPU NIC (no ipaddr printed)",
           Severity::error);
  judge_cards(sink);
  // the capacity with the chip it belongs to; the hbm signature knows each chip's rated HBM
  for (const auto& [npu, v] : hbm_) {
    const auto c = chip_.find(npu);
    if (c == chip_.end() || v.first.empty() ||
        v.first.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const std::string msg = "npu-smi info -i " + std::to_string(npu) + " -t usages: NPU " +
                            std::to_string(npu) + " chip " + c->second + " HBM Capacity " +
                            v.first + " MB";
    emit(sink, v.second, npu, msg, Severity::info);
  }
  for (const auto& ctx : silent_smi_)
    emit(sink, ctx, -1, "npu-smi info: printed nothing (no device table: no driver answered)",
         Severity::error);
}

}  // namespace faultline::parse
