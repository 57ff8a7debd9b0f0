// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// streamt run: the plan against Kafka, exactly once (contract §5, §6).

#include "engine/kafka_runtime.hpp"
#include "engine/lineage.hpp"
#include "engine/log.hpp"
#include "engine/metrics_server.hpp"
#include "kafka/config.hpp"
#include "plan/plan_json.hpp"
#include "tools/streamt/cli.hpp"
#include "tools/streamt/registry_cli.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <signal.h>

#include <charconv>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace streamt::cli {

namespace {
// The defaults of the options: the engine's (engine::run_options) and this
// command's own. The --help text is made from them, and
// test/package/documented_defaults.sh checks the docs and the man page
// against that text, so none of them can drift from the code.

// The range of every numeric option (docs/configuration.md lists them; a
// value outside is a usage error, exit 2). The upper bounds keep each one
// meaningful: a commit interval is bounded by the broker's transaction
// timeout in practice (librdkafka's transaction.timeout.ms, 60000 by default,
// aborts a transaction held longer), and a transaction's records are tracked
// in memory until it commits.
struct number_range {
  long long min;
  long long max;
};
constexpr number_range commit_interval_range{1, 600'000};
constexpr number_range max_records_range{1, 1'000'000};
constexpr number_range stop_timeout_range{1, 3'600'000};
constexpr number_range connect_timeout_range{1, 3'600'000};
// At least the 5 s slice a wait for the brokers is asked in; at most a day.
constexpr number_range stall_timeout_range{5'000, 86'400'000};
constexpr engine::severity default_log_level = engine::severity::info;
constexpr engine::log_format default_log_format = engine::log_format::text;

constexpr std::pair<std::string_view, engine::severity> log_levels[] = {
    {"trace", engine::severity::trace},
    {"debug", engine::severity::debug},
    {"info", engine::severity::info},
    {"warning", engine::severity::warning},
    {"error", engine::severity::error}};
constexpr std::pair<std::string_view, engine::log_format> log_formats[] = {
    {"text", engine::log_format::text}, {"json", engine::log_format::json}};

// "trace, debug, info (default), warning, error": the names, the default marked.
template <typename T, std::size_t N>
std::string choices(const std::pair<std::string_view, T> (&names)[N], T chosen,
                    std::string_view last_separator) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? last_separator : ", ";
    out += names[i].first;
    if (names[i].second == chosen) out += " (default)";
  }
  return out;
}

std::string range_of(number_range r) { return std::to_string(r.min) + ".." + std::to_string(r.max); }

std::string help() {
  const engine::run_options defaults;
  const auto n = [](auto v) { return std::to_string(v); };
  return "usage: streamt run PLAN --bootstrap-servers HOSTS [options]\n"
         "\n"
         "Run a plan against Kafka exactly once: consume read_committed, transform,\n"
         "produce transactionally and commit the consumed offsets inside the transaction.\n"
         "Stop with SIGTERM or SIGINT: the open transaction finishes and the group is\n"
         "left (a second signal, or --stop-timeout-ms, stops at once).\n"
         "\n"
         "  --bootstrap-servers HOSTS     Kafka brokers, host:port[,host:port...]\n"
         "                                (also --bootstrap-server or -b, as Kafka's tools)\n"
         "  --state-dir DIR               lock, identity and plan history of this instance\n"
         "                                (default $XDG_STATE_HOME/streamt/APPLICATION_ID,\n"
         "                                or ~/.local/state/streamt/APPLICATION_ID)\n"
         "  -X KEY=VALUE                  a librdkafka setting (repeatable): TLS, SASL, timeouts\n"
         "  --config FILE                 librdkafka settings in Java properties syntax\n"
         "  --commit-interval-ms N        commit at least this often (default " +
         n(defaults.commit_interval.count()) + "; " + range_of(commit_interval_range) +
         ")\n"
         "  --max-records-per-transaction N   and at the latest after N records (default " +
         n(defaults.max_records_per_transaction) + "; " + range_of(max_records_range) +
         ")\n"
         "  --reset-offsets earliest|latest   proceed when a committed offset is out of range\n"
         "  --expect-digest DIGEST        refuse to run unless the plan has this digest\n"
         "  --allow-output-change         accept a changed projection on restart\n"
         "  --static-membership           a static group member: group.instance.id from the\n"
         "                                instance id (KIP-345); the default with the classic\n"
         "                                group protocol\n"
         "  --dynamic-membership          a dynamic group member; the default with\n"
         "                                group.protocol=consumer (KIP-848)\n"
         "  --lineage-header NAME         a header NAME on every record written, after the input's:\n"
         "                                the plan, source partition and offset (sha256:...;p=P;o=O)\n"
         "  --stop-timeout-ms N           bound on a clean stop (default " +
         n(defaults.stop_timeout.count()) + "; " + range_of(stop_timeout_range) +
         ")\n"
         "  --connect-timeout-ms N        how long the brokers may take to answer at start (default " +
         n(defaults.connect_timeout.count()) + "; " + range_of(connect_timeout_range) +
         ");\n"
         "                                once partitions are taken, up to --stall-timeout-ms\n"
         "  --stall-timeout-ms N          how long a running engine waits for one answer from its\n"
         "                                brokers (or its schema registry) before it exits 69/75 for\n"
         "                                a restart (default " +
         n(defaults.stall_timeout.count()) + "; " + range_of(stall_timeout_range) +
         ")\n"
         "  --schema-registry URL         the Schema Registry of an Avro plan's writer schemas\n"
         "                                (http[s]://host[:port][/prefix]; one request per schema id)\n"
         "  --registry-config FILE        its client settings in Java properties syntax (basic auth,\n"
         "                                TLS files, timeouts: the Confluent clients' keys)\n"
         "  --no-register                 an Avro sink's schema must be registered already (by\n"
         "                                default the run registers it under SINK_TOPIC-value)\n"
         "  --metrics-address HOST:PORT   serve /metrics (Prometheus), /healthz and /readyz over HTTP\n"
         "                                (port 0: any free port, logged at start)\n"
         "  --metrics-file PATH           the metrics, written durably at start and at exit with the\n"
         "                                exit code (for node_exporter's textfile collector)\n"
         "  --log-level LEVEL             " +
         choices(log_levels, default_log_level, ", ") +
         "\n"
         "  --log-format FORMAT           " +
         choices(log_formats, default_log_format, ", or ") +
         ": one JSON object a line\n"
         "\n"
         "Settings the engine owns (isolation.level, transactional.id, enable.auto.commit,\n"
         "group.id, enable.idempotence, ...) are refused. A value may take secrets from\n"
         "outside the command line: ${env:NAME} (an environment variable) or ${file:PATH}\n"
         "(a file's contents, one trailing newline stripped), in -X and --config alike.\n"
         "\n"
         "exit codes: 0 clean stop; 1 invalid plan or digest mismatch; 2 usage;\n"
         "            65 invalid record (everything before it committed, nothing after it visible);\n"
         "            69 brokers unreachable at start, topic missing or transactions refused,\n"
         "               the schema registry not answering past --stall-timeout-ms;\n"
         "            73 state directory locked or unusable; 75 fenced or fatal client error;\n"
         "            78 refused setting or unresolvable ${env:}/${file:}, changed identity or output,\n"
         "               offset out of range, --metrics-address taken, the schema registry\n"
         "               refusing the credentials or TLS\n";
}

// The value of NAME in NAMES, if it is one of them.
template <typename T, std::size_t N>
std::optional<T> lookup(const std::pair<std::string_view, T> (&names)[N], std::string_view name) {
  for (const auto& [n, v] : names)
    if (n == name) return v;
  return std::nullopt;
}

int range_error(std::string_view option, number_range range, std::string_view unit, const std::string& got) {
  return cli::range_error("run", option, unit, range.min, range.max, got);
}

// A whole-number option within `range`, into `out` (a count, or a
// duration in milliseconds) when it is given; the exit code of the usage
// error when it is out of range.
template <class T>
std::optional<int> take_bounded(const arguments& a, const std::string& option, number_range range,
                                std::string_view unit, T& out) {
  const std::optional<std::string> v = a.get(option);
  if (!v) return std::nullopt;
  const std::optional<long long> n = whole_number<long long>(*v, range.min, range.max);
  if (!n) return range_error(option, range, unit, *v);
  out = T(*n);
  return std::nullopt;
}

std::string default_state_dir(const std::string& application_id) {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/streamt/" + application_id;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.local/state/streamt/" + application_id;
}
}  // namespace

int cmd_run(std::span<char* const> args) {
  // SIGINT/SIGTERM are blocked since the program's first instruction (see
  // release_stop_signals in cli.hpp) and stay blocked until the signal_set
  // below is listening: a supervisor's stop arriving while we start up would
  // otherwise kill the process by the default action (exit by signal, not
  // the clean exit 0). One that arrives meanwhile stays pending and is
  // delivered then; the engine records it and acts on it as on any other
  // (engine::async_run: a stop during start-up ends it before any
  // transaction). Every thread (librdkafka's, the pools') inherits the mask,
  // so the signal always reaches this one.
  // A usage error or --help returns with them still blocked: main() exits.
  option_spec spec{
      {"--bootstrap-servers", "--state-dir", "-X", "--config", "--commit-interval-ms",
       "--max-records-per-transaction", "--reset-offsets", "--expect-digest", "--stop-timeout-ms",
       "--connect-timeout-ms", "--stall-timeout-ms", "--log-level", "--log-format", "--metrics-address",
       "--metrics-file", "--lineage-header", "--schema-registry", "--registry-config"},
      {"--help", "--allow-output-change", "--static-membership", "--dynamic-membership", "--no-register"},
      {"-X"},
      {{"--bootstrap-server", "--bootstrap-servers"}, {"-b", "--bootstrap-servers"}}};
  // Every line follows --log-format, the first (a usage error among them):
  // so it is looked up before anything could be refused. A value that is
  // no format leaves the lines plain, and is refused below.
  if (find_option(args, spec, "--log-format") == "json") {
    engine::init_console_logging(default_log_level, engine::log_format::json);
    use_log_lines();
  }
  arguments a;
  if (auto done = parse_command("run", args, spec, help(), a)) return *done;
  if (a.positionals.size() != 1) return usage_error("run", "expected one PLAN file");
  if (!a.get("--bootstrap-servers")) return usage_error("run", "missing --bootstrap-servers");

  engine::run_options options;
  options.bootstrap_servers = *a.get("--bootstrap-servers");
  if (auto err = bootstrap_servers_error(options.bootstrap_servers)) return usage_error("run", *err);
  options.allow_output_change = a.has("--allow-output-change");
  if (a.has("--static-membership") && a.has("--dynamic-membership"))
    return usage_error("run", "--static-membership and --dynamic-membership exclude each other");
  if (a.has("--static-membership")) options.membership = kafka::membership::static_member;
  if (a.has("--dynamic-membership")) options.membership = kafka::membership::dynamic_member;
  options.register_sink_schema = !a.has("--no-register");
  if (auto v = a.get("--lineage-header")) {
    if (std::optional<engine::header_name_problem> bad = engine::lineage_header_name_problem(*v)) {
      std::string message = "--lineage-header: " + bad->message;
      if (!bad->suggestion.empty()) message += "; did you mean '" + bad->suggestion + "'?";
      return usage_error("run", message);
    }
    options.lineage_header = *v;
  }
  if (auto e = take_bounded(a, "--commit-interval-ms", commit_interval_range, "milliseconds",
                            options.commit_interval))
    return *e;
  if (auto e = take_bounded(a, "--max-records-per-transaction", max_records_range, "records",
                            options.max_records_per_transaction))
    return *e;
  if (auto e = take_bounded(a, "--stop-timeout-ms", stop_timeout_range, "milliseconds", options.stop_timeout))
    return *e;
  if (auto e = take_bounded(a, "--connect-timeout-ms", connect_timeout_range, "milliseconds",
                            options.connect_timeout))
    return *e;
  if (auto e =
          take_bounded(a, "--stall-timeout-ms", stall_timeout_range, "milliseconds", options.stall_timeout))
    return *e;
  if (auto v = a.get("--reset-offsets")) {
    if (*v == "earliest")
      options.reset_offsets = engine::reset_policy::earliest;
    else if (*v == "latest")
      options.reset_offsets = engine::reset_policy::latest;
    else
      return usage_error("run", "--reset-offsets takes earliest or latest");
  }
  std::optional<boost::asio::ip::tcp::endpoint> metrics_at;
  if (auto v = a.get("--metrics-address")) {
    auto at = engine::parse_listen_address(*v);
    if (!at) return usage_error("run", "--metrics-address: " + at.error());
    metrics_at = *at;
  }
  const std::optional<std::string> metrics_file = a.get("--metrics-file");
  engine::severity level = default_log_level;
  if (auto v = a.get("--log-level")) {
    auto l = lookup(log_levels, *v);
    if (!l) return usage_error("run", "--log-level takes trace, debug, info, warning or error");
    level = *l;
  }
  engine::log_format format = default_log_format;
  if (auto v = a.get("--log-format")) {
    auto f = lookup(log_formats, *v);
    if (!f) return usage_error("run", "--log-format takes text or json");
    format = *f;
  }

  // The plan is validated completely before any Kafka client exists.
  engine::exit_code code{};
  std::optional<plan::plan> p = load_plan_file("run", a.positionals[0], code);
  if (!p) return engine::to_int(code);
  std::variant<std::optional<registry_flags>, int> flags = read_registry_flags("run", a);
  if (const int* failed = std::get_if<int>(&flags)) return *failed;
  if (const std::optional<registry_flags>& f = std::get<0>(flags)) {
    std::variant<kafka::registry::config, int> c = read_registry_config("run", *f);
    if (const int* failed = std::get_if<int>(&c)) return *failed;
    options.schema_registry = std::move(std::get<0>(c));
  }
  if (p->schema.avro && !options.schema_registry)
    return usage_error("run",
                       "the plan's source is Avro in the Confluent wire format: give --schema-registry URL, "
                       "the Schema Registry its writer schemas come from");
  if (p->sink.avro && !options.schema_registry)
    return usage_error(
        "run",
        "the plan's sink is Avro in the Confluent wire format: give --schema-registry URL, "
        "the Schema Registry its schema is registered with (or compile with --sink-format json)");
  if (auto expected = a.get("--expect-digest"); expected && *expected != plan::digest(*p)) {
    const int code = engine::to_int(engine::exit_code::rejected);
    say_error("run",
              "the plan's digest is " + plan::digest(*p) + ", not the expected " + *expected +
                  "; the plan changed after it was reviewed",
              code);
    return code;
  }
  if (std::optional<int> failed = read_client_settings("run", a, options.client_settings)) return *failed;
  // ${env:...} and ${file:...} are resolved by the engine's start, before
  // it opens the state directory (engine::async_run).
  options.state_dir = a.get("--state-dir").value_or(default_state_dir(p->identity.application_id));

  // Again, with the run's level (replacing the sink of the pre-scan's).
  engine::init_console_logging(level, format);
  // One pipeline per process: librdkafka's lines, which reach the log from
  // its own threads and know no pipeline, name this one too.
  engine::set_process_pipeline_attributes(p->identity.application_id, plan::digest(*p));
  // The CLI's own lines: as JSON log lines of channel "cli" (use_log_lines
  // above), or the plain "streamt run: ..." of the text format.
  auto say = [&](const std::string& message, engine::exit_code code) {
    say_error("run", message, engine::to_int(code));
  };
  boost::asio::io_context io(1);
  // The endpoints listen before the run starts: a port that is taken is an
  // error before anything touches Kafka, and /healthz answers from the start.
  options.metrics = std::make_shared<engine::metrics>();
  options.metrics->set_identity(engine::metrics::identity_of(*p));
  // The file outlives the process: what a scrape of /metrics cannot see
  // (an exit 65 a few milliseconds after the start) stays in it until the
  // next start replaces it. Written before the run starts, so a path that
  // cannot be written is refused before anything touches Kafka.
  auto write_metrics_file = [&]() -> bool {
    if (!metrics_file) return true;
    if (std::optional<std::string> e = options.metrics->write_textfile(*metrics_file)) {
      say("cannot write --metrics-file: " + *e, engine::exit_code::cannot_write);
      return false;
    }
    return true;
  };
  const std::shared_ptr<engine::metrics> run_metrics = options.metrics;  // options move into the run
  auto exit_with = [&](engine::exit_code code) {
    run_metrics->exiting(engine::to_int(code));
    if (metrics_file)
      if (std::optional<std::string> e = run_metrics->write_textfile(*metrics_file))
        say("cannot write --metrics-file at exit: " + *e, code);
    return engine::to_int(code);
  };
  if (!write_metrics_file()) return engine::to_int(engine::exit_code::cannot_write);
  std::unique_ptr<engine::metrics_server> metrics_server;
  if (metrics_at) {
    auto server = engine::metrics_server::listen(io.get_executor(), *metrics_at, options.metrics);
    if (!server) {
      say("cannot serve metrics on " + *a.get("--metrics-address") + ": " + server.error().message() +
              "; choose another --metrics-address",
          engine::exit_code::config);
      return exit_with(engine::exit_code::config);
    }
    metrics_server = std::move(*server);
    const boost::asio::ip::tcp::endpoint at = metrics_server->local_endpoint();
    const std::string host =
        at.address().is_v6() ? "[" + at.address().to_string() + "]" : at.address().to_string();
    engine::logger log(boost::log::keywords::channel = "engine");
    STREAMT_LOG(log, info) << "serving metrics on http://" << host << ":" << at.port()
                           << "/metrics (also /healthz and /readyz)";
    // The endpoints only read the metrics; if serving them fails (a bug), the
    // engine goes on and says so.
    boost::asio::co_spawn(io, metrics_server->serve(), [log](std::exception_ptr e) mutable {
      if (!e) return;
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        STREAMT_LOG(log, error) << "the metrics endpoint stopped: " << x.what();
      }
    });
  }
  boost::asio::cancellation_signal stop;
  std::optional<engine::run_report> report;
  std::exception_ptr crashed;
  const std::chrono::milliseconds stop_timeout = options.stop_timeout;  // options move into the run
  boost::asio::co_spawn(
      io, engine::async_run(std::move(*p), std::move(options)),
      boost::asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr e, engine::run_report r) {
        crashed = e;
        if (!e) report = std::move(r);
      }));

  // Two-phase stop: the first signal asks for a graceful stop (the open
  // transaction commits, the group is left); a second signal makes it
  // terminal, and so does the engine itself once --stop-timeout-ms passed
  // (run_options::stop_timeout).
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  boost::asio::steady_timer last_resort(io);
  int signals_seen = 0;
  // The engine sees a stop within about a second, whatever librdkafka call
  // is under way, except in leaving the group (consumer_close in a group
  // whose coordinator is gone can block for minutes, seen in tests) and in
  // destroying the clients. "Stops at once" (contract §5) must hold anyway,
  // so a run still going this long after its terminal stop ends the
  // process. Nothing is lost: the broker aborts the open transaction after
  // transaction.timeout.ms, and the group drops us after session.timeout.ms.
  constexpr std::chrono::seconds terminal_grace{5};
  auto arm_last_resort = [&](std::chrono::milliseconds after) {
    last_resort.expires_after(after);
    last_resort.async_wait([&](boost::system::error_code hec) {
      if (hec || report || crashed) return;
      say("still not stopped " + std::to_string(terminal_grace.count()) +
              " s after the terminal stop (leaving the group, or closing a client, does not return); exiting "
              "now. The broker aborts the open transaction after transaction.timeout.ms",
          engine::exit_code::temporary_failure);
      std::_Exit(exit_with(engine::exit_code::temporary_failure));
    });
  };
  std::function<void(boost::system::error_code, int)> on_signal = [&](boost::system::error_code ec, int) {
    if (ec || report || crashed) return;
    if (++signals_seen == 1) {
      stop.emit(boost::asio::cancellation_type::total);
      arm_last_resort(stop_timeout + terminal_grace);
    } else if (signals_seen == 2) {
      stop.emit(boost::asio::cancellation_type::terminal);
      arm_last_resort(terminal_grace);
    }
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);
  release_stop_signals();

  // Runs until the pipeline completes; then the signal wait and timer are
  // cancelled so run() returns.
  while (!report && !crashed && io.run_one() > 0) {
  }
  signals.cancel();
  last_resort.cancel();
  if (metrics_server) metrics_server->stop();
  io.run();

  if (crashed) {
    exit_with(engine::exit_code::internal);
    std::rethrow_exception(crashed);  // a bug: main() reports it as an internal error
  }
  if (!report) return exit_with(engine::exit_code::internal);
  // The engine logged the run's end as its last line (engine::async_run),
  // so it is not said again here: one line per fatal error.
  return exit_with(engine::exit_code_of(report->status));
}

}  // namespace streamt::cli
