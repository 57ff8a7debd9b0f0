// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/queue_waker.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

namespace streamt::kafka {

boost::system::result<queue_waker> queue_waker::create(boost::asio::any_io_executor ex, queue_ptr queue) {
  if (!queue) return boost::system::error_code(errc::queue_unavailable);
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return boost::system::error_code(errno, boost::system::system_category());
  boost::asio::posix::stream_descriptor descriptor(std::move(ex), fd);
  // An eventfd accepts only 8-byte writes of a counter increment; a shorter
  // payload would make every librdkafka write fail with EINVAL and we would
  // never wake.
  static constexpr std::uint64_t increment = 1;
  rd_kafka_queue_io_event_enable(queue.get(), fd, &increment, sizeof increment);
  return queue_waker(std::move(queue), std::move(descriptor));
}

queue_waker::queue_waker(queue_ptr queue, boost::asio::posix::stream_descriptor fd) noexcept
    : queue_(std::move(queue)), fd_(std::move(fd)) {}

queue_waker::~queue_waker() {
  if (queue_) rd_kafka_queue_io_event_enable(queue_.get(), -1, nullptr, 0);
}

void queue_waker::drain_counter() noexcept {
  // Reading an eventfd returns and resets the whole counter; EAGAIN means a
  // concurrent drain already did. Either way the fd is no longer readable.
  std::uint64_t counter = 0;
  [[maybe_unused]] const auto n = ::read(fd_.native_handle(), &counter, sizeof counter);
}

}  // namespace streamt::kafka
