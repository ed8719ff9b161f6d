// Uploads: the body streamed to a file under tmp/ while it is hashed, then registered in the
// index (or answered as a duplicate of an earlier analysis of the same bytes) and queued.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "faultline/core/sha256.hpp"
#include "impl.hpp"
#include "pages.hpp"

namespace faultline::serve {

namespace fs = std::filesystem;
using detail::Analysis;
using json = nlohmann::json;

namespace {

// A partial upload file under tmp/: removed unless released into place.
class UploadFile {
 public:
  explicit UploadFile(const fs::path& dir) {
    for (int attempt = 0; attempt < 8 && fd_ < 0; ++attempt) {
      path_ = dir / ("upload-" + detail::new_id() + ".part");
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    }
    if (fd_ < 0) throw std::runtime_error("cannot create an upload file");
  }
  ~UploadFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!released_) {
      std::error_code ec;
      fs::remove(path_, ec);
    }
  }
  UploadFile(const UploadFile&) = delete;
  UploadFile& operator=(const UploadFile&) = delete;

  bool write(const char* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }
  bool close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0;
  }
  // Moves the file to `to` (same file system).
  void release_to(const fs::path& to) {
    fs::rename(path_, to);
    released_ = true;
  }

 private:
  fs::path path_;
  int fd_ = -1;
  bool released_ = false;
};
}  // namespace

void Server::Impl::on_upload(const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader& reader) {
  const std::string tok = detail::presented_token(req);
  {
    std::lock_guard<std::mutex> lk(mu);
    if (queue.size() >= cfg.max_queued) {
      res.set_header("Retry-After", "60");
      res.set_header("Connection", "close");
      detail::send_error(req, res, 503, "too many analyses are waiting; try again later", tok);
      return;
    }
  }
  // 413, and the connection closed: what is left of the body is not read
  const auto too_large = [&] {
    res.set_header("Connection", "close");
    detail::send_error(req, res, 413,
                       "the upload is larger than this server accepts (" +
                           detail::human_size(cfg.max_upload) + ")",
                       tok);
  };
  const uint64_t declared = req.get_header_value<uint64_t>("Content-Length");
  if (declared > cfg.max_upload + detail::kMultipartSlack + detail::kDrainOversize) {
    // Far too large to read and drop: answer now and close the connection.
    too_large();
    return;
  }

  std::string upload_name = req.get_param_value("name");
  if (upload_name.empty()) upload_name = req.get_header_value("X-Filename");

  UploadFile file(tmp_dir);
  Sha256 hash;
  uint64_t bytes = 0;
  bool too_big = false, write_failed = false;
  auto sink = [&](const char* d, size_t n) {
    if (bytes + n > cfg.max_upload) {
      too_big = true;
      return false;
    }
    if (!file.write(d, n)) {
      write_failed = true;
      return false;
    }
    hash.update(d, n);
    bytes += n;
    return true;
  };

  bool ok = false;
  bool have_file = false;
  if (req.is_multipart_form_data()) {
    bool in_file = false;
    ok = reader(
        [&](const httplib::MultipartFormData& part) {
          in_file = !have_file &&
                    (!part.filename.empty() || part.name == "file" || part.name == "bundle");
          if (in_file) {
            have_file = true;
            if (!part.filename.empty()) upload_name = part.filename;
          }
          return true;
        },
        [&](const char* d, size_t n) { return in_file ? sink(d, n) : true; });
  } else {
    have_file = true;
    ok = reader([&](const char* d, size_t n) { return sink(d, n); });
  }

  if (too_big || (!ok && res.status == 413)) {
    too_large();
    return;
  }
  if (write_failed) {
    res.set_header("Connection", "close");
    detail::send_error(req, res, 507, "the upload could not be stored (is the server's disk full?)",
                       tok);
    return;
  }
  if (!ok && detail::request_timed_out()) {
    res.set_header("Connection", "close");
    detail::send_error(req, res, 408,
                       "the upload arrived too slowly (below " +
                           detail::human_size(cfg.min_transfer_rate) + "/s); nothing was stored",
                       tok);
    return;
  }
  if (!ok) {
    res.set_header("Connection", "close");
    detail::send_error(req, res, 400, "the upload was interrupted or is not a valid request body",
                       tok);
    return;
  }
  if (!have_file) {
    detail::send_error(req, res, 400,
                       "the form has no file part (send the bundle in a field named 'file')", tok);
    return;
  }
  if (bytes == 0) {
    detail::send_error(req, res, 400, "the upload is empty", tok);
    return;
  }
  if (!file.close()) {
    detail::send_error(req, res, 507, "the upload could not be stored (is the server's disk full?)",
                       tok);
    return;
  }
  const std::string sha = hash.hex();
  const std::string name = detail::display_name(upload_name);
  const std::string fname = detail::safe_file_name(upload_name);

  std::lock_guard<std::mutex> lk(mu);
  try {
    auto existing = index->by_sha256(sha);
    if (existing && existing->status != "failed") {
      json j = detail::analysis_json(*existing);
      j["duplicate"] = true;
      detail::send_json(res, 200, j);
      res.set_header("Location", "/api/bundles/" + existing->id);
      return;
    }
    if (queue.size() >= cfg.max_queued) {
      res.set_header("Retry-After", "60");
      detail::send_error(req, res, 503, "too many analyses are waiting; try again later", tok);
      return;
    }
    const int64_t now = detail::now_epoch();
    std::string id;
    if (existing) {
      // A failed analysis of the same bytes: run it again under the same id.
      id = existing->id;
      if (!detail::valid_id(id)) throw std::runtime_error("bad id in the index");
      std::error_code ec;
      fs::remove_all(analysis_dir(id) / "upload", ec);
      detail::remove_db_files(db_path(id));
      fs::create_directories(analysis_dir(id) / "upload");
      Analysis a = *existing;
      a.file = fname;
      file.release_to(bundle_path(a));
      index->requeue(id, name, fname, now);
    } else {
      for (int attempt = 0; attempt < 8 && id.empty(); ++attempt) {
        std::string cand = detail::new_id();
        if (fs::create_directory(analysis_dir(cand))) id = cand;
      }
      if (id.empty()) throw std::runtime_error("cannot create an analysis directory");
      fs::create_directory(analysis_dir(id) / "upload");
      Analysis a;
      a.id = id;
      a.sha256 = sha;
      a.name = name;
      a.file = fname;
      a.size = bytes;
      a.status = "queued";
      a.uploaded_at = now;
      file.release_to(bundle_path(a));
      index->insert(a);
    }
    queue.push_back(id);
    work_cv.notify_one();
    log("upload " + id + ": " + name + " (" + detail::human_size(bytes) + ") queued");
    res.set_header("Location", "/api/bundles/" + id);
    detail::send_json(res, 202,
                      json{{"id", id}, {"status", "queued"}, {"sha256", sha}, {"size", bytes}});
  } catch (const std::exception& e) {
    log("upload failed: " + std::string(e.what()));
    detail::send_error(req, res, 500, "the upload could not be registered", tok);
  }
}
}  // namespace faultline::serve
