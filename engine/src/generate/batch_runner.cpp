// SPDX-License-Identifier: MIT
// BatchRunner (see batch_runner.hpp). Tasks are handed out one at a time under the mutex: a
// task here renders a whole config (tens of microseconds), so a lock per task costs nothing
// measurable and keeps the hand-off obviously race-free.
#include "batch_runner.hpp"

namespace zf::pipeline {

BatchRunner::BatchRunner(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

BatchRunner::~BatchRunner() {
  {
    // Destroyed while a batch runs (the caller is unwinding): hand out no more tasks and wait
    // for the ones under way, which may use what the caller is about to destroy.
    std::unique_lock lock(mutex_);
    next_ = count_;
    finished_.wait(lock, [this] { return active_ == 0; });
    closing_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void BatchRunner::start(std::size_t count, std::function<void(std::size_t)> task) {
  {
    std::lock_guard lock(mutex_);
    task_ = std::move(task);
    count_ = count;
    next_ = 0;
    done_ = 0;
    ++generation_;
  }
  wake_.notify_all();
}

void BatchRunner::work(bool caller) {
  std::unique_lock lock(mutex_);
  while (next_ < count_) {
    std::size_t index = next_++;
    lock.unlock();
    task_(index);  // task_ and count_ change only in start(), after finish() saw every worker idle
    lock.lock();
    if (++done_ == count_) finished_.notify_all();
  }
  if (!caller) {
    --active_;
    finished_.notify_all();
  }
}

void BatchRunner::finish() {
  work(true);
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return done_ == count_ && active_ == 0; });
}

void BatchRunner::worker_loop() {
  std::size_t seen = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return closing_ || generation_ != seen; });
    if (closing_) return;
    seen = generation_;
    ++active_;
    lock.unlock();
    work(false);
    lock.lock();
  }
}

}  // namespace zf::pipeline
