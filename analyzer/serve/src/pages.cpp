#include "pages.hpp"

#include <array>
#include <cstdio>

#include "faultline/core/sha256.hpp"
#include "util.hpp"

namespace faultline::serve::detail {

namespace {

constexpr const char* kCss = R"css(
:root{--fg:#1f2933;--muted:#616e7c;--line:#d9e2ec;--bg:#f5f7fa;--accent:#1d4ed8;--ok:#0f7b3f;--bad:#b42318;--warn:#b54708}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#102a43;color:#fff;padding:10px 24px;display:flex;gap:24px;align-items:baseline}
header a{color:#fff;text-decoration:none}header .brand{font-weight:700;font-size:17px}
main{max-width:1100px;margin:24px auto;padding:0 24px}
h1{font-size:22px;margin:0 0 16px}h2{font-size:17px;margin:28px 0 10px}
a{color:var(--accent)}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:20px}
#drop{display:block;border:2px dashed #9fb3c8;border-radius:8px;padding:36px;text-align:center;background:#fff;cursor:pointer}
#drop.over,#drop:focus{border-color:var(--accent);background:#eff4ff;outline:none}
#drop .hint{display:block;margin:6px 0;color:var(--muted)}
progress{width:100%;height:14px;margin-top:14px}
#msg{margin-top:10px;min-height:1.5em}#msg.err{color:var(--bad);font-weight:600}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line)}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:#f0f4f8;font-weight:600;font-size:13px;color:var(--muted)}
td.when{white-space:nowrap;font-variant-numeric:tabular-nums}
.st{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#e4e7eb}
.st.done{background:#d3f9d8;color:var(--ok)}.st.failed{background:#fde2e1;color:var(--bad)}
.st.running{background:#dbeafe;color:var(--accent)}.st.queued{background:#eef0f3;color:var(--muted)}
.muted{color:var(--muted)}.err{color:var(--bad)}code{font-size:13px}
.verdict-root_cause{color:var(--bad);font-weight:600}.verdict-symptom{color:var(--warn)}.verdict-fault{color:var(--warn)}
)css";

std::string link(const std::string& path, const std::string& token) {
  return path + token_query(token);
}

std::string layout(const std::string& title, const std::string& body, const std::string& script,
                   const std::string& token) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  h += "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">";
  h += "<link rel=\"icon\" href=\"data:,\">";
  h += "<title>" + html_escape(title) + " · faultline</title><style>";
  h += kCss;
  h += "</style></head><body><header><a class=\"brand\" href=\"" + html_escape(link("/", token)) +
       "\">faultline</a><a href=\"" + html_escape(link("/", token)) + "\">Upload</a><a href=\"" +
       html_escape(link("/bundles", token)) + "\">Analyses</a></header><main>";
  h += body;
  h += "</main>";
  if (!script.empty()) h += "<script>" + script + "</script>";
  h += "</body></html>\n";
  return h;
}

// JavaScript shared by the pages: the token of the page's own address goes on every request.
constexpr const char* kJsCommon = R"js(
const TOKEN = new URLSearchParams(location.search).get('token');
function u(p) { return TOKEN ? p + (p.indexOf('?') < 0 ? '?' : '&') + 'token=' + encodeURIComponent(TOKEN) : p; }
function poll(id, onStatus) {
  fetch(u('/api/bundles/' + id + '?report=0'), {cache: 'no-store'})
    .then(function (r) { return r.json(); })
    .then(function (s) {
      if (onStatus(s) === false) return;
      setTimeout(function () { poll(id, onStatus); }, 1000);
    })
    .catch(function () { setTimeout(function () { poll(id, onStatus); }, 2000); });
}
)js";

std::string analyses_table(const std::vector<Analysis>& list, const std::string& token) {
  if (list.empty()) return "<p class=\"muted\">No analysis yet.</p>";
  std::string h =
      "<table id=\"analyses\"><thead><tr><th>Bundle</th><th>Hosts</th><th>Verdict</th>"
      "<th>Uploaded (UTC)</th><th>Status</th></tr></thead><tbody>";
  for (const auto& a : list) {
    h += "<tr data-id=\"" + a.id + "\"><td><a href=\"" +
         html_escape(link("/bundles/" + a.id, token)) + "\">" + html_escape(a.name) +
         "</a><br><span class=\"muted\">" + human_size(a.size) + "</span></td><td>";
    for (size_t i = 0; i < a.hosts.size() && i < 8; ++i) {
      if (i) h += ", ";
      h += html_escape(a.hosts[i]);
    }
    if (a.hosts.size() > 8) h += ", … (" + std::to_string(a.hosts.size()) + ")";
    h += "</td><td>";
    if (a.status == "done") {
      if (a.verdict_kind == "first_failure") {
        h += "<span class=\"verdict-root_cause\">" + html_escape(a.verdict_title) +
             "</span><br><code>" + html_escape(a.verdict_id) +
             "</code> <span class=\"muted\">(job answer, across the nodes)</span>";
      } else if (a.verdict_kind == "root_cause" || a.verdict_kind == "symptom" ||
                 a.verdict_kind == "fault") {
        h += "<span class=\"verdict-" + a.verdict_kind + "\">" + html_escape(a.verdict_title) +
             "</span><br><code>" + html_escape(a.verdict_id) + "</code>";
        if (a.verdict_kind == "symptom") h += " <span class=\"muted\">(no root cause found)</span>";
        if (a.verdict_kind == "fault")
          h += " <span class=\"muted\">(no diagnosis; " + std::to_string(a.faults) +
               " fault event" + (a.faults == 1 ? "" : "s") + ")</span>";
      } else {
        h += "<span class=\"muted\">no finding</span>";
      }
    } else if (a.status == "failed") {
      std::string e = a.error.size() > 160 ? a.error.substr(0, 160) + "…" : a.error;
      h += "<span class=\"err\">" + html_escape(e) + "</span>";
    }
    h += "</td><td class=\"when\">" + html_escape(iso_utc(a.uploaded_at)) +
         "</td><td><span class=\"st " + a.status + "\">" + html_escape(a.status) +
         "</span></td></tr>";
  }
  h += "</tbody></table>";
  return h;
}

}  // namespace

std::string token_query(const std::string& token) {
  return token.empty() ? std::string() : "?token=" + url_encode(token);
}

std::string human_size(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

namespace {
const std::string& home_js();

// The status page's script: constant; the analysis id comes from data-id.
const std::string& status_js() {
  static const std::string js = std::string(kJsCommon) + R"js(
const ST = document.getElementById('status');
poll(ST.dataset.id, function (s) {
  ST.textContent = s.status; ST.className = 'st ' + s.status;
  if (s.status === 'done' || s.status === 'failed') { location.reload(); return false; }
  return true;
});
)js";
  return js;
}

std::string base64(const std::array<uint8_t, 32>& d) {
  static constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < d.size(); i += 3) {
    const uint32_t n = (uint32_t{d[i]} << 16) | (i + 1 < d.size() ? uint32_t{d[i + 1]} << 8 : 0) |
                       (i + 2 < d.size() ? uint32_t{d[i + 2]} : 0);
    out.push_back(kB64[(n >> 18) & 63]);
    out.push_back(kB64[(n >> 12) & 63]);
    out.push_back(i + 1 < d.size() ? kB64[(n >> 6) & 63] : '=');
    out.push_back(i + 2 < d.size() ? kB64[n & 63] : '=');
  }
  return out;
}

std::string script_hash(const std::string& js) {
  Sha256 h;
  h.update(js);
  return "'sha256-" + base64(h.digest()) + "'";
}
}  // namespace

std::string content_security_policy() {
  static const std::string csp = "default-src 'self'; script-src " + script_hash(home_js()) + " " +
                                 script_hash(status_js()) +
                                 "; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                                 "object-src 'none'; base-uri 'none'; form-action 'self'; "
                                 "frame-ancestors 'none'";
  return csp;
}

std::string home_page(const std::vector<Analysis>& recent, uint64_t max_upload,
                      const std::string& token) {
  std::string body;
  body += "<h1>Analyze a bundle</h1><div class=\"card\">";
  body +=
      "<div id=\"drop\" role=\"button\" tabindex=\"0\"><strong>Drop a bundle here or click to "
      "choose "
      "one</strong><span class=\"hint\">A support or crash bundle: tar, tar.gz, tar.zst, zip, or a "
      "single "
      "log file. At most " +
      html_escape(human_size(max_upload)) +
      ".</span><span class=\"hint\">It is analysed on this server; nothing leaves it.</span></div>"
      "<input type=\"file\" id=\"file\" name=\"file\" hidden data-max=\"" +
      std::to_string(max_upload) + "\" data-max-text=\"" + html_escape(human_size(max_upload)) +
      "\"><progress id=\"bar\" max=\"1\" value=\"0\" hidden></progress><div id=\"msg\" "
      "role=\"status\"></div>";
  body += "</div><h2>Recent analyses</h2>";
  body += analyses_table(recent, token);
  if (recent.size() >= 20)
    body += "<p><a href=\"" + html_escape(link("/bundles", token)) + "\">All analyses</a></p>";

  return layout("Upload", body, home_js(), token);
}

namespace {
// The upload page's script: constant (its hash is in the CSP); the limit comes from data-max.
const std::string& home_js() {
  static const std::string js = std::string(kJsCommon) + R"js(
const input = document.getElementById('file'), drop = document.getElementById('drop'),
      bar = document.getElementById('bar'), msg = document.getElementById('msg');
const MAX = Number(input.dataset.max), MAX_TEXT = input.dataset.maxText;
let busy = false;
function say(t, err) { msg.textContent = t; msg.className = err ? 'err' : ''; }
function upload(f) {
  if (!f || busy) return;
  if (f.size > MAX) { say(f.name + ' is larger than the upload limit of this server (' + MAX_TEXT + ').', true); return; }
  busy = true;
  const x = new XMLHttpRequest();
  x.open('POST', u('/api/bundles?name=' + encodeURIComponent(f.name)));
  x.setRequestHeader('Content-Type', 'application/octet-stream');
  bar.hidden = false; bar.max = Math.max(f.size, 1); bar.value = 0;
  x.upload.onprogress = function (e) {
    if (!e.lengthComputable) return;
    bar.max = Math.max(e.total, 1); bar.value = e.loaded;
    say('Uploading ' + f.name + ': ' + Math.floor(100 * e.loaded / Math.max(e.total, 1)) + '%');
  };
  x.onload = function () {
    let r = null;
    try { r = JSON.parse(x.responseText); } catch (e) { r = null; }
    if ((x.status === 202 || x.status === 200) && r && r.id) {
      bar.value = bar.max;
      say(r.duplicate ? 'This bundle was uploaded before: opening its analysis…' : 'Uploaded. Analysis queued…');
      poll(r.id, function (s) {
        if (s.status === 'done') { location.href = u('/bundles/' + r.id); return false; }
        if (s.status === 'failed') {
          busy = false;
          say('The analysis failed: ' + (s.error || 'unknown error'), true);
          return false;
        }
        say('Analysis ' + s.status + '…');
        return true;
      });
    } else {
      busy = false;
      say('Upload refused: ' + (r && r.error ? r.error : 'HTTP ' + x.status), true);
    }
  };
  x.onerror = function () { busy = false; say('Upload failed: the connection to the server was lost.', true); };
  say('Uploading ' + f.name + '…');
  x.send(f);
}
input.addEventListener('change', function () { if (input.files.length) upload(input.files[0]); });
drop.addEventListener('click', function () { input.click(); });
drop.addEventListener('keydown', function (e) {
  if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); }
});
['dragenter', 'dragover'].forEach(function (t) {
  drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.add('over'); });
});
['dragleave', 'drop'].forEach(function (t) {
  drop.addEventListener(t, function (e) { e.preventDefault(); drop.classList.remove('over'); });
});
drop.addEventListener('drop', function (e) {
  if (e.dataTransfer && e.dataTransfer.files.length) upload(e.dataTransfer.files[0]);
});
)js";
  return js;
}
}  // namespace

std::string list_page(const std::vector<Analysis>& all, const std::string& token) {
  std::string body = "<h1>Analyses</h1>" + analyses_table(all, token);
  return layout("Analyses", body, "", token);
}

std::string status_page(const Analysis& a, const std::string& token) {
  std::string body = "<h1>" + html_escape(a.name) + "</h1><div class=\"card\">";
  body += "<p>Status: <span id=\"status\" data-id=\"" + html_escape(a.id) + "\" class=\"st " +
          a.status + "\">" + html_escape(a.status) + "</span></p>";
  body += "<p class=\"muted\">sha256 <code>" + html_escape(a.sha256) + "</code>, " +
          human_size(a.size) + ", uploaded " + html_escape(iso_utc(a.uploaded_at)) + "</p>";
  if (a.status == "failed") {
    body += "<p class=\"err\" id=\"error\">The analysis failed: " + html_escape(a.error) + "</p>";
    body += "<p class=\"muted\">Uploading the same bundle again runs the analysis again.</p>";
  } else {
    body += "<p id=\"wait\">The report appears here when the analysis ends.</p>";
  }
  body += "</div>";
  const bool waiting = a.status == "queued" || a.status == "running";
  return layout(a.name, body, waiting ? status_js() : std::string(), token);
}

std::string report_page(const Analysis& a, const std::string& report_html, const std::string& token,
                        const std::string& after_bar) {
  const std::string base = "/api/bundles/" + a.id;
  const std::string dl = token.empty() ? "?download=1" : token_query(token) + "&download=1";
  const std::string ls = "color:#fff;text-decoration:underline";
  std::string bar =
      "<nav id=\"faultline-serve-bar\" style=\"font:14px/1.4 "
      "system-ui,sans-serif;background:#102a43;"
      "color:#fff;padding:8px 16px;margin:0 0 16px;border-radius:6px;display:flex;gap:6px 18px;"
      "flex-wrap:wrap;align-items:baseline\">";
  bar += "<a style=\"" + ls + ";font-weight:700\" href=\"" + html_escape(link("/", token)) +
         "\">faultline</a>";
  bar += "<a style=\"" + ls + "\" href=\"" + html_escape(link("/bundles", token)) +
         "\">All analyses</a>";
  bar += "<span>" + html_escape(a.name) + " <span style=\"opacity:.7\">sha256 " +
         html_escape(a.sha256.substr(0, 16)) + "…</span></span>";
  if (a.verdict_kind == "first_failure")
    bar += "<span>First failure (job): <strong>" + html_escape(a.verdict_title) +
           "</strong> <code>" + html_escape(a.verdict_id) + "</code></span>";
  else if (a.verdict_kind == "root_cause" || a.verdict_kind == "symptom" ||
           a.verdict_kind == "fault")
    bar += "<span>" +
           std::string(a.verdict_kind == "root_cause" ? "Root cause"
                       : a.verdict_kind == "symptom"  ? "Unexplained symptom"
                                                      : "Fault event") +
           ": <strong>" + html_escape(a.verdict_title) + "</strong> <code>" +
           html_escape(a.verdict_id) + "</code></span>";
  else
    bar += "<span>No finding</span>";
  bar += "<span style=\"margin-left:auto\">Download: ";
  bar += "<a style=\"" + ls + "\" href=\"" + html_escape(base + "/report.md" + dl) +
         "\">Markdown</a> · ";
  bar += "<a style=\"" + ls + "\" href=\"" + html_escape(base + "/report.json" + dl) +
         "\">JSON</a> · ";
  bar += "<a style=\"" + ls + "\" href=\"" + html_escape(base + "/report.html" + dl) +
         "\">HTML</a> · ";
  bar += "timeline <a style=\"" + ls + "\" href=\"" + html_escape(base + "/report.jsonl" + dl) +
         "\">JSONL</a> · ";
  bar +=
      "<a style=\"" + ls + "\" href=\"" + html_escape(base + "/report.csv" + dl) + "\">CSV</a> · ";
  bar +=
      "<a style=\"" + ls + "\" href=\"" + html_escape(base + "/db" + dl) + "\">SQLite database</a>";
  bar += "</span></nav>";
  bar += after_bar;

  if (report_html.empty()) {
    return layout(a.name, bar + "<p class=\"muted\">The report is empty.</p>", "", token);
  }
  // After the opening <body ...> tag of the report; a report without one gets the bar in front.
  size_t pos = std::string::npos;
  for (size_t i = report_html.find('<'); i != std::string::npos; i = report_html.find('<', i + 1)) {
    if (report_html.size() - i >= 5 &&
        (report_html.compare(i, 5, "<body") == 0 || report_html.compare(i, 5, "<BODY") == 0)) {
      const size_t close = report_html.find('>', i);
      if (close != std::string::npos) pos = close + 1;
      break;
    }
  }
  if (pos == std::string::npos) return bar + report_html;
  std::string out = report_html;
  out.insert(pos, bar);
  return out;
}

std::string error_page(int status, const std::string& message, const std::string& token) {
  std::string body = "<h1>" + std::to_string(status) +
                     "</h1><div class=\"card\"><p class=\"err\">" + html_escape(message) +
                     "</p><p><a href=\"" + html_escape(link("/", token)) +
                     "\">Back to the upload page</a></p></div>";
  return layout("Error", body, "", token);
}

}  // namespace faultline::serve::detail
