// The hand-off between the two threads of the streaming pass, with back-pressure.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "faultline/pipeline/stats.hpp"

namespace faultline::pipeline {

// Work handed from the reading thread (walk, decompression, line chunks, sha256, classification,
// Hyperscan) to the writing thread (parsers, pending hits, SQLite rows), run in order. The
// SQLite connection is used by the writing thread only while the walk runs. Bounded: at most
// kMaxInFlight bytes of chunk copies wait; small tasks go in batches so that a bundle of many
// tiny files does not pay a lock per file. Threads off: every task runs at once, on the caller.
class Handoff {
 public:
  using Task = std::function<void()>;
  static constexpr size_t kMaxInFlight = 8U << 20;
  static constexpr size_t kBatchBytes = 256U << 10;
  static constexpr size_t kBatchTasks = 64;

  Handoff(bool threaded, Stats& stats) : stats_(stats) {
    if (threaded) worker_ = std::thread([this] { run(); });
  }
  ~Handoff() { abort(); }
  Handoff(const Handoff&) = delete;
  Handoff& operator=(const Handoff&) = delete;

  [[nodiscard]] bool threaded() const { return worker_.joinable(); }

  // Reading thread: has it waited on a full queue longer than the writing thread waited for
  // work, so far? Then the writing thread is the busier one.
  [[nodiscard]] bool writer_behind() {
    if (!threaded()) return false;
    std::lock_guard<std::mutex> lock(mu_);
    return stats_.reader_wait_s > stats_.writer_wait_s;
  }

  // Reading thread. Rethrows the first error of a task on the writing thread.
  void push(Task t, size_t bytes) {
    if (!threaded()) {
      t();
      return;
    }
    batch_.push_back(std::move(t));
    batch_bytes_ += bytes;
    if (batch_bytes_ >= kBatchBytes || batch_.size() >= kBatchTasks) flush();
  }

  // Reading thread, after the walk: runs what is left and waits for it. Rethrows.
  void finish() {
    if (!threaded()) return;
    flush();
    {
      std::unique_lock<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_work_.notify_one();
    worker_.join();
    if (error_) std::rethrow_exception(error_);
  }

  // Chunk buffers are reused: no page faults for a fresh 1 MiB buffer per chunk.
  std::string buffer() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.empty()) return {};
    std::string b = std::move(pool_.back());
    pool_.pop_back();
    return b;
  }
  void recycle(std::string b) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.size() < 16) {
      b.clear();
      pool_.push_back(std::move(b));
    }
  }

  // On an error of the reading thread: drop what waits and end the writing thread (before the
  // objects its tasks use are destroyed).
  void abort() {
    if (!threaded()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_work_.notify_one();
    worker_.join();
  }

 private:
  struct Batch {
    std::vector<Task> tasks;
    size_t bytes = 0;
  };

  void flush() {
    if (batch_.empty()) return;
    Batch b{std::move(batch_), batch_bytes_};
    batch_.clear();
    batch_bytes_ = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (in_flight_ + b.bytes > kMaxInFlight && in_flight_ > 0 && !error_) {
        const auto t0 = std::chrono::steady_clock::now();
        cv_space_.wait(lock, [&] {
          return in_flight_ + b.bytes <= kMaxInFlight || in_flight_ == 0 || error_;
        });
        stats_.reader_wait_s +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if (error_) {
        const std::exception_ptr e = error_;
        lock.unlock();
        throw_error(e);
      }
      in_flight_ += b.bytes;
      queue_.push_back(std::move(b));
    }
    cv_work_.notify_one();
  }

  [[noreturn]] static void throw_error(const std::exception_ptr& e) { std::rethrow_exception(e); }

  void run() {
    while (true) {
      Batch b;
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (queue_.empty() && !done_ && !stop_) {
          const auto t0 = std::chrono::steady_clock::now();
          cv_work_.wait(lock, [&] { return !queue_.empty() || done_ || stop_; });
          stats_.writer_wait_s +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
        if (stop_ || (queue_.empty() && done_)) break;
        b = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!error_) {
        try {
          for (auto& t : b.tasks) {
            if (stop_) break;
            t();
          }
        } catch (...) {
          std::lock_guard<std::mutex> lock(mu_);
          error_ = std::current_exception();
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        in_flight_ -= b.bytes;
      }
      cv_space_.notify_one();
    }
    stats_.writer_cpu_s = thread_cpu_seconds();
  }

  Stats& stats_;
  std::thread worker_;
  std::vector<Task> batch_;  // reading thread only
  size_t batch_bytes_ = 0;
  std::mutex mu_;
  std::condition_variable cv_work_, cv_space_;
  std::deque<Batch> queue_;
  size_t in_flight_ = 0;
  bool done_ = false;
  std::atomic<bool> stop_{false};
  std::exception_ptr error_;
  std::mutex pool_mu_;
  std::vector<std::string> pool_;
};

}  // namespace faultline::pipeline
