// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

/*
 * txn_probe: does the linked librdkafka produce, consume, run an idempotent
 * producer and run transactions (init, begin, produce,
 * send_offsets_to_transaction, commit, abort) against a real broker, and does
 * read_committed consumption hide the aborted records?
 *
 * Each check prints "PASS name" or "FAIL name: <librdkafka error name>:
 * <message>"; the last line is "N passed, N failed" and the exit code is 0
 * only when nothing failed. It creates its own two topics (unique names),
 * so it needs nothing but a bootstrap address.
 *
 * Build (Debian's librdkafka-dev, or point -I/-L at another librdkafka):
 *   cc -std=c11 -Wall -Wextra -O1 -o /tmp/txn_probe \
 *      tools/kafka/probe/txn_probe.c -lrdkafka
 * Run against a throwaway broker:
 *   tools/kafka-local run-with-broker -- sh -c '/tmp/txn_probe "$STREAMT_BOOTSTRAP"'
 *
 * Timeouts are bounded (30 s a call) so a broker that never answers ends
 * the probe with a FAIL instead of hanging it.
 */
#define _POSIX_C_SOURCE 200809L
#include <librdkafka/rdkafka.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { call_timeout_ms = 30000, records_in = 6, records_aborted = 3 };

static int passed;
static int failed;
static const char* bootstrap;
static char in_topic[128];
static char out_topic[128];
static char txn_group[128];
static char plain_group[128];

static void pass(const char* check) {
  ++passed;
  printf("PASS %s\n", check);
  fflush(stdout);
}

static void fail(const char* check, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char* check, const char* fmt, ...) {
  va_list args;
  ++failed;
  printf("FAIL %s: ", check);
  va_start(args, fmt);
  vprintf(fmt, args);
  va_end(args);
  printf("\n");
  fflush(stdout);
}

/* Reports a transactional call's result with the flags the engine's error
 * classification depends on, then frees the error. Returns 1 on success. */
static int check_error(const char* check, rd_kafka_error_t* error) {
  if (!error) {
    pass(check);
    return 1;
  }
  fail(check, "%s: %s (retriable=%d fatal=%d txn_requires_abort=%d)", rd_kafka_error_name(error),
       rd_kafka_error_string(error), rd_kafka_error_is_retriable(error), rd_kafka_error_is_fatal(error),
       rd_kafka_error_txn_requires_abort(error));
  rd_kafka_error_destroy(error);
  return 0;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set(rd_kafka_conf_t* conf, const char* name, const char* value) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, name, value, errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "config %s=%s: %s\n", name, value, errstr);
    exit(2);
  }
}

/* Logged client errors are printed, so a failure shows what the client saw
 * (a "FAIL" alone would hide e.g. an unsupported protocol version). */
static void error_cb(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  (void)opaque;
  fprintf(stderr, "  [%s error_cb] %s: %s\n", rd_kafka_name(rk), rd_kafka_err2name((rd_kafka_resp_err_t)err),
          reason);
}

static int delivery_failures;
static rd_kafka_resp_err_t first_delivery_error;

static void dr_msg_cb(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque) {
  (void)rk;
  (void)opaque;
  if (msg->err) {
    if (!delivery_failures++) first_delivery_error = msg->err;
  }
}

static rd_kafka_conf_t* base_conf(void) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  rd_kafka_conf_set_error_cb(conf, error_cb);
  return conf;
}

static rd_kafka_t* new_handle(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char errstr[512];
  if (type == RD_KAFKA_PRODUCER) rd_kafka_conf_set_dr_msg_cb(conf, dr_msg_cb);
  rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof errstr);
  if (!rk) {
    fprintf(stderr, "rd_kafka_new: %s\n", errstr);
    exit(2);
  }
  if (type == RD_KAFKA_CONSUMER) rd_kafka_poll_set_consumer(rk);
  return rk;
}

static int create_topics(rd_kafka_t* rk) {
  const char* names[2] = {in_topic, out_topic};
  rd_kafka_NewTopic_t* topics[2];
  char errstr[512];
  for (int i = 0; i < 2; ++i) topics[i] = rd_kafka_NewTopic_new(names[i], 1, 1, errstr, sizeof errstr);
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, topics, 2, NULL, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, call_timeout_ms);
  int ok = 0;
  if (!event) {
    fail("admin_create_topics", "no result within %d ms", call_timeout_ms);
  } else if (rd_kafka_event_error(event)) {
    fail("admin_create_topics", "%s: %s", rd_kafka_err2name(rd_kafka_event_error(event)),
         rd_kafka_event_error_string(event));
  } else {
    size_t count = 0;
    const rd_kafka_topic_result_t** results =
        rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count);
    ok = 1;
    for (size_t i = 0; i < count; ++i) {
      if (rd_kafka_topic_result_error(results[i])) {
        fail("admin_create_topics", "%s: %s: %s", rd_kafka_topic_result_name(results[i]),
             rd_kafka_err2name(rd_kafka_topic_result_error(results[i])),
             rd_kafka_topic_result_error_string(results[i]));
        ok = 0;
      }
    }
    if (ok) pass("admin_create_topics");
  }
  if (event) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  for (int i = 0; i < 2; ++i) rd_kafka_NewTopic_destroy(topics[i]);
  return ok;
}

static int produce_one(rd_kafka_t* rk, const char* topic, const char* key, const char* value) {
  rd_kafka_resp_err_t err = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_KEY(key, strlen(key)),
                                              RD_KAFKA_V_VALUE((void*)value, strlen(value)),
                                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (err) {
    fprintf(stderr, "  producev(%s): %s\n", topic, rd_kafka_err2str(err));
    return 0;
  }
  return 1;
}

/* Produces n records key<first+i> to in_topic with the given producer
 * settings and checks every delivery report. */
static void produce_input(const char* check, int first, int n, const char* idempotence) {
  rd_kafka_conf_t* conf = base_conf();
  set(conf, "acks", "all");
  set(conf, "enable.idempotence", idempotence);
  rd_kafka_t* rk = new_handle(RD_KAFKA_PRODUCER, conf);
  delivery_failures = 0;
  int queued = 1;
  for (int i = first; i < first + n; ++i) {
    char key[32];
    char value[64];
    snprintf(key, sizeof key, "k%d", i);
    snprintf(value, sizeof value, "{\"id\":\"k%d\",\"amount\":%d}", i, i * 10);
    queued &= produce_one(rk, in_topic, key, value);
  }
  rd_kafka_resp_err_t flushed = rd_kafka_flush(rk, call_timeout_ms);
  char reason[512] = "";
  if (!queued)
    snprintf(reason, sizeof reason, "producev failed");
  else if (flushed)
    snprintf(reason, sizeof reason, "flush: %s", rd_kafka_err2str(flushed));
  else if (delivery_failures)
    snprintf(reason, sizeof reason, "%d delivery failures, first %s: %s", delivery_failures,
             rd_kafka_err2name(first_delivery_error), rd_kafka_err2str(first_delivery_error));
  else {
    char fatal[256];
    rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk, fatal, sizeof fatal);
    if (err) snprintf(reason, sizeof reason, "fatal %s: %s", rd_kafka_err2name(err), fatal);
  }
  if (reason[0])
    fail(check, "%s", reason);
  else
    pass(check);
  rd_kafka_destroy(rk);
}

static rd_kafka_t* new_consumer(const char* group, const char* isolation) {
  rd_kafka_conf_t* conf = base_conf();
  set(conf, "group.id", group);
  set(conf, "auto.offset.reset", "earliest");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.partition.eof", "true");
  set(conf, "isolation.level", isolation);
  return new_handle(RD_KAFKA_CONSUMER, conf);
}

/* Reads partition 0 of topic from the beginning to its end (partition EOF,
 * which under read_committed is the last stable offset) without a group,
 * and writes the values, one a line, into out. Returns the record count or
 * -1 on a consumer error. */
static int dump_partition(const char* topic, const char* isolation, char* out, size_t out_size) {
  rd_kafka_t* rk = new_consumer("txn-probe-dump-unused", isolation);
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(rk, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  int count = 0;
  size_t used = 0;
  out[0] = '\0';
  int64_t deadline = now_ms() + call_timeout_ms;
  while (now_ms() < deadline) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 200);
    if (!msg) continue;
    if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(msg);
      break;
    }
    if (msg->err) {
      fprintf(stderr, "  consume %s: %s\n", topic, rd_kafka_message_errstr(msg));
      rd_kafka_message_destroy(msg);
      count = -1;
      break;
    }
    int n = snprintf(out + used, out_size - used, "%" PRId64 ":%.*s\n", msg->offset, (int)msg->len,
                     (const char*)msg->payload);
    if (n > 0 && (size_t)n < out_size - used) used += (size_t)n;
    ++count;
    rd_kafka_message_destroy(msg);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return count;
}

/* The committed offset of partition 0 of in_topic for group, read through a
 * new consumer of that group, or -1001 (RD_KAFKA_OFFSET_INVALID) for none. */
static int64_t committed_offset(const char* group) {
  rd_kafka_t* rk = new_consumer(group, "read_committed");
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, in_topic, 0);
  rd_kafka_resp_err_t err = rd_kafka_committed(rk, parts, call_timeout_ms);
  int64_t offset = err ? -2 : parts->elems[0].offset;
  if (err) fprintf(stderr, "  committed(%s): %s\n", group, rd_kafka_err2str(err));
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_destroy(rk);
  return offset;
}

/* (a) A plain consumer group reads what was produced and commits it. */
static void check_plain_consume(void) {
  rd_kafka_t* rk = new_consumer(plain_group, "read_uncommitted");
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, in_topic, RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t err = rd_kafka_subscribe(rk, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  int count = 0;
  int64_t deadline = now_ms() + call_timeout_ms;
  while (!err && count < records_in && now_ms() < deadline) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk, 200);
    if (!msg) continue;
    if (!msg->err)
      ++count;
    else if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
      fprintf(stderr, "  plain consume: %s\n", rd_kafka_message_errstr(msg));
    rd_kafka_message_destroy(msg);
  }
  if (err || count != records_in)
    fail("plain_consumer_group_reads_all", "subscribe %s, read %d of %d", rd_kafka_err2name(err), count,
         records_in);
  else
    pass("plain_consumer_group_reads_all");
  err = rd_kafka_commit(rk, NULL, 0);
  if (err)
    fail("plain_consumer_commits", "%s: %s", rd_kafka_err2name(err), rd_kafka_err2str(err));
  else
    pass("plain_consumer_commits");
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  int64_t committed = committed_offset(plain_group);
  if (committed == records_in)
    pass("plain_committed_offset_reads_back");
  else
    fail("plain_committed_offset_reads_back", "committed %" PRId64 ", expected %d", committed, records_in);
}

/* (c) consume-transform-produce: a read_committed group consumer feeds a
 * transactional producer; offsets go into the transaction with the
 * consumer's group metadata (KIP-447), as the engine does. */
static void check_transactions(void) {
  rd_kafka_t* consumer = new_consumer(txn_group, "read_committed");
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, in_topic, RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(consumer, topics);
  rd_kafka_topic_partition_list_destroy(topics);

  char txn_id[160];
  snprintf(txn_id, sizeof txn_id, "%s-0", txn_group);
  rd_kafka_conf_t* conf = base_conf();
  set(conf, "transactional.id", txn_id);
  set(conf, "transaction.timeout.ms", "60000");
  rd_kafka_t* producer = new_handle(RD_KAFKA_PRODUCER, conf);

  if (!check_error("txn_init_transactions", rd_kafka_init_transactions(producer, call_timeout_ms))) goto done;

  /* Transaction 1: transform every input record and commit with offsets. */
  char values[records_in][96];
  int count = 0;
  int64_t next_offset = 0;
  int64_t deadline = now_ms() + call_timeout_ms;
  while (count < records_in && now_ms() < deadline) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(consumer, 200);
    if (!msg) continue;
    if (!msg->err) {
      snprintf(values[count], sizeof values[count], "committed:%.*s", (int)msg->len,
               (const char*)msg->payload);
      ++count;
      next_offset = msg->offset + 1;
    }
    rd_kafka_message_destroy(msg);
  }
  if (count != records_in) {
    fail("txn_consumer_reads_input", "read %d of %d", count, records_in);
    goto done;
  }
  pass("txn_consumer_reads_input");
  if (!check_error("txn_begin_1", rd_kafka_begin_transaction(producer))) goto done;
  for (int i = 0; i < count; ++i) produce_one(producer, out_topic, "k", values[i]);
  rd_kafka_topic_partition_list_t* offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, in_topic, 0)->offset = next_offset;
  rd_kafka_consumer_group_metadata_t* metadata = rd_kafka_consumer_group_metadata(consumer);
  int sent = check_error("txn_send_offsets_with_group_metadata",
                         rd_kafka_send_offsets_to_transaction(producer, offsets, metadata, call_timeout_ms));
  rd_kafka_topic_partition_list_destroy(offsets);
  if (!sent) {
    rd_kafka_consumer_group_metadata_destroy(metadata);
    goto done;
  }
  if (!check_error("txn_commit_1", rd_kafka_commit_transaction(producer, call_timeout_ms))) {
    rd_kafka_consumer_group_metadata_destroy(metadata);
    goto done;
  }

  /* Transaction 2: records that reach the log, then an abort. Its offsets
   * (a lower one, 3) must not replace the committed 6. */
  if (!check_error("txn_begin_2", rd_kafka_begin_transaction(producer))) {
    rd_kafka_consumer_group_metadata_destroy(metadata);
    goto done;
  }
  for (int i = 0; i < records_aborted; ++i) {
    char value[32];
    snprintf(value, sizeof value, "aborted:%d", i);
    produce_one(producer, out_topic, "k", value);
  }
  /* Flushing makes the aborted records land in the log before the abort,
   * so read_committed really has something to hide. */
  rd_kafka_flush(producer, call_timeout_ms);
  offsets = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(offsets, in_topic, 0)->offset = 3;
  check_error("txn_send_offsets_then_abort",
              rd_kafka_send_offsets_to_transaction(producer, offsets, metadata, call_timeout_ms));
  rd_kafka_topic_partition_list_destroy(offsets);
  rd_kafka_consumer_group_metadata_destroy(metadata);
  if (!check_error("txn_abort_2", rd_kafka_abort_transaction(producer, call_timeout_ms))) goto done;

  /* Transaction 3: the producer is usable after an abort. */
  if (!check_error("txn_begin_3", rd_kafka_begin_transaction(producer))) goto done;
  produce_one(producer, out_topic, "k", "committed:after-abort");
  check_error("txn_commit_3_after_abort", rd_kafka_commit_transaction(producer, call_timeout_ms));

done:
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  rd_kafka_destroy(producer);
}

static void check_visibility(void) {
  static char committed[8192];
  static char uncommitted[8192];
  int n_committed = dump_partition(out_topic, "read_committed", committed, sizeof committed);
  int n_uncommitted = dump_partition(out_topic, "read_uncommitted", uncommitted, sizeof uncommitted);
  printf("  read_committed dump of %s (offset:value):\n%s", out_topic, committed);
  printf("  read_uncommitted dump of %s (offset:value):\n%s", out_topic, uncommitted);
  if (n_uncommitted == records_in + records_aborted + 1 && strstr(uncommitted, "aborted:0"))
    pass("aborted_records_reached_the_log");
  else
    fail("aborted_records_reached_the_log", "read_uncommitted saw %d records", n_uncommitted);
  if (n_committed == records_in + 1 && !strstr(committed, "aborted:") &&
      strstr(committed, "committed:after-abort"))
    pass("read_committed_hides_aborted_records");
  else
    fail("read_committed_hides_aborted_records", "read_committed saw %d records (expected %d, none aborted)",
         n_committed, records_in + 1);
  int64_t offset = committed_offset(txn_group);
  if (offset == records_in)
    pass("txn_committed_offset_is_6_after_the_abort");
  else
    fail("txn_committed_offset_is_6_after_the_abort", "committed %" PRId64 ", expected %d", offset,
         records_in);
}

/* A second producer with the same transactional.id fences the first: the
 * engine relies on this to keep two instances of one identity apart. */
static void check_fencing(void) {
  char txn_id[160];
  snprintf(txn_id, sizeof txn_id, "%s-fence", txn_group);
  rd_kafka_t* producers[2];
  for (int i = 0; i < 2; ++i) {
    rd_kafka_conf_t* conf = base_conf();
    set(conf, "transactional.id", txn_id);
    producers[i] = new_handle(RD_KAFKA_PRODUCER, conf);
  }
  if (check_error("fence_init_first", rd_kafka_init_transactions(producers[0], call_timeout_ms)) &&
      check_error("fence_init_second", rd_kafka_init_transactions(producers[1], call_timeout_ms))) {
    rd_kafka_error_t* error = rd_kafka_begin_transaction(producers[0]);
    if (!error) {
      produce_one(producers[0], out_topic, "k", "fenced");
      error = rd_kafka_commit_transaction(producers[0], call_timeout_ms);
    }
    if (error && rd_kafka_error_is_fatal(error)) {
      printf("  fenced producer's error: %s: %s\n", rd_kafka_error_name(error), rd_kafka_error_string(error));
      pass("first_producer_is_fenced_fatally");
    } else {
      fail("first_producer_is_fenced_fatally", "%s",
           error ? rd_kafka_error_string(error) : "its commit succeeded");
    }
    if (error) rd_kafka_error_destroy(error);
  }
  for (int i = 0; i < 2; ++i) rd_kafka_destroy(producers[i]);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s BOOTSTRAP_SERVERS\n", argv[0]);
    return 2;
  }
  bootstrap = argv[1];
  printf("librdkafka %s\n", rd_kafka_version_str());
  long suffix = (long)getpid() ^ (long)time(NULL);
  snprintf(in_topic, sizeof in_topic, "txn-probe-in-%ld", suffix);
  snprintf(out_topic, sizeof out_topic, "txn-probe-out-%ld", suffix);
  snprintf(txn_group, sizeof txn_group, "txn-probe-eos-%ld", suffix);
  snprintf(plain_group, sizeof plain_group, "txn-probe-plain-%ld", suffix);
  printf("topics %s %s, groups %s %s\n", in_topic, out_topic, txn_group, plain_group);

  rd_kafka_t* admin = new_handle(RD_KAFKA_PRODUCER, base_conf());
  int topics_ok = create_topics(admin);
  rd_kafka_destroy(admin);
  if (topics_ok) {
    produce_input("plain_producer_delivers", 0, records_in / 2, "false");
    produce_input("idempotent_producer_delivers", records_in / 2, records_in - records_in / 2, "true");
    check_plain_consume();
    check_transactions();
    check_visibility();
    check_fencing();
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed || !topics_ok ? 1 : 0;
}
