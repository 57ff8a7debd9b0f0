// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

#include "kafka/error.hpp"

#include "kafka/handles.hpp"

namespace streamt::kafka {
namespace {

const char* condition_name(condition c) noexcept {
  switch (c) {
    case condition::retriable:
      return "retriable";
    case condition::abortable:
      return "abortable";
    case condition::fatal:
      return "fatal";
    case condition::fenced:
      return "fenced";
    case condition::configuration:
      return "configuration";
    case condition::unclassified:
      return "unclassified";
  }
  return "unknown";
}

class kafka_category_impl final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "streamt.kafka"; }
  std::string message(int ev) const override {
    switch (static_cast<errc>(ev)) {
      case errc::engine_owned_setting:
        return "setting is owned by the engine and cannot be overridden";
      case errc::invalid_setting:
        return "librdkafka rejected the setting";
      case errc::properties_syntax:
        return "malformed Java properties";
      case errc::file_unreadable:
        return "configuration file could not be read";
      case errc::client_creation_failed:
        return "the librdkafka client could not be created";
      case errc::queue_unavailable:
        return "librdkafka returned no queue";
      case errc::closed:
        return "the consumer is closed";
      case errc::unresolved_reference:
        return "a ${env:...} or ${file:...} reference could not be resolved";
    }
    return "unknown streamt.kafka error";
  }
  boost::system::error_condition default_error_condition(int ev) const noexcept override {
    switch (static_cast<errc>(ev)) {
      case errc::engine_owned_setting:
      case errc::invalid_setting:
      case errc::properties_syntax:
      case errc::file_unreadable:
      case errc::unresolved_reference:
        return make_error_condition(condition::configuration);
      default:
        return make_error_condition(condition::fatal);
    }
  }
};

class rdkafka_category_impl final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "librdkafka"; }
  std::string message(int ev) const override { return rd_kafka_err2str(unpack(ev).code); }
  boost::system::error_condition default_error_condition(int ev) const noexcept override {
    // A success has no condition: mapping it to `unclassified` would make
    // `success == condition::unclassified` true.
    if (!unpack(ev).failed()) return {ev, *this};
    return make_error_condition(classify(unpack(ev)));
  }
};

class condition_category_impl final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "streamt.kafka.condition"; }
  std::string message(int ev) const override { return condition_name(static_cast<condition>(ev)); }
  bool equivalent(const boost::system::error_code& ec, int cond) const noexcept override {
    if (ec.category() != kafka_category() && ec.category() != rdkafka_category()) return false;
    if (!ec.failed()) return false;
    return static_cast<int>(condition_of(ec)) == cond;
  }
};

const kafka_category_impl kafka_category_instance;
const rdkafka_category_impl rdkafka_category_instance;
const condition_category_impl condition_category_instance;

}  // namespace

const boost::system::error_category& kafka_category() noexcept { return kafka_category_instance; }
const boost::system::error_category& rdkafka_category() noexcept { return rdkafka_category_instance; }
const boost::system::error_category& condition_category() noexcept { return condition_category_instance; }

txn_error_info copy_error_info(const rd_kafka_error_t* error) noexcept {
  if (error == nullptr) return {};
  return {rd_kafka_error_code(error), rd_kafka_error_is_retriable(error) != 0,
          rd_kafka_error_txn_requires_abort(error) != 0, rd_kafka_error_is_fatal(error) != 0};
}

condition condition_of(const boost::system::error_code& ec) noexcept {
  if (ec.category() == rdkafka_category()) return classify(unpack(ec.value()));
  if (ec.category() == kafka_category()) {
    return static_cast<condition>(kafka_category().default_error_condition(ec.value()).value());
  }
  return condition::unclassified;
}

std::string describe(const txn_error_info& info) {
  if (!info.failed()) return "success";
  return std::string(rd_kafka_err2name(info.code)) + " (" + condition_name(classify(info)) +
         "): " + rd_kafka_err2str(info.code);
}

std::string describe(const rd_kafka_error_t* error) {
  if (error == nullptr) return "success";
  const auto info = copy_error_info(error);
  return std::string(rd_kafka_error_name(error)) + " (" + condition_name(classify(info)) +
         "): " + rd_kafka_error_string(error);
}

error_report take_error(rd_kafka_error_t* error) {
  const error_ptr owned(error);
  if (!owned) return {};
  return {copy_error_info(owned.get()), describe(owned.get())};
}

error_report report_of(rd_kafka_resp_err_t code) {
  const txn_error_info info = txn_error_info::plain(code);
  if (!info.failed()) return {};
  return {info, describe(info)};
}

}  // namespace streamt::kafka
