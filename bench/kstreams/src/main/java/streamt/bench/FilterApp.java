// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

package streamt.bench;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The Kafka Streams counterpart of the engine's benchmark plan
 *
 * <pre>SELECT id AS order_id, amount, note, flag FROM orders [WHERE amount &gt;= MIN]</pre>
 *
 * <p>over values like {"id":"o-0000123","amount":734,"note":"...","flag":true}. A record is
 * checked as the engine checks it (contract section 4) as far as Jackson's tree model allows: one JSON
 * object with exactly the four declared members, no duplicates, no trailing data; id a string;
 * amount a JSON integer in the signed 64-bit range (not "120", 120.0 or 1e2); note a string or
 * null; flag a boolean or null. A tombstone is dropped. An invalid record fails the application,
 * as it stops the engine.
 *
 * <p>Usage: FilterApp --bootstrap-servers B --application-id ID --input T --output T --state-dir D
 * [--min-amount N]. Without --min-amount every valid record passes. SIGTERM closes the streams
 * client (the open transaction is committed) and exits 0; an application that failed exits 1.
 */
public final class FilterApp {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private FilterApp() {}

  static final class InvalidRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InvalidRecordException(String reason) {
      super(reason);
    }
  }

  /** Parses and type-checks one order value; throws InvalidRecordException if it is invalid. */
  static ObjectNode parse(byte[] value) {
    final JsonNode node;
    try {
      node = MAPPER.readTree(value);
    } catch (IOException e) {
      throw new InvalidRecordException("malformed JSON: " + e.getMessage());
    }
    if (!(node instanceof ObjectNode order)) {
      throw new InvalidRecordException("not a JSON object");
    }
    // Exactly four members, and each of the four named: nothing unknown.
    if (order.size() != 4) {
      throw new InvalidRecordException("expected 4 members, got " + order.size());
    }
    require(order, "id", order.path("id").isTextual());
    final JsonNode amount = order.path("amount");
    require(order, "amount", amount.isIntegralNumber() && amount.canConvertToLong());
    final JsonNode note = order.path("note");
    require(order, "note", note.isTextual() || note.isNull());
    final JsonNode flag = order.path("flag");
    require(order, "flag", flag.isBoolean() || flag.isNull());
    return order;
  }

  private static void require(ObjectNode order, String member, boolean ok) {
    if (!ok) {
      throw new InvalidRecordException(
          order.has(member) ? member + " has the wrong type" : member + " is missing");
    }
  }

  /** The projection, in the plan's order and under its output names, as compact JSON. */
  static byte[] project(ObjectNode order) {
    final ObjectNode out = MAPPER.createObjectNode();
    out.set("order_id", order.get("id"));
    out.set("amount", order.get("amount"));
    out.set("note", order.get("note"));
    out.set("flag", order.get("flag"));
    try {
      return MAPPER.writeValueAsBytes(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static void main(String[] args) {
    final Map<String, String> a = options(args);
    final String input = need(a, "--input");
    final String output = need(a, "--output");
    final Long minAmount = a.containsKey("--min-amount") ? Long.valueOf(a.get("--min-amount")) : null;

    final StreamsBuilder builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .filter((key, value) -> value != null)
        .mapValues(FilterApp::parse)
        .filter((key, order) -> minAmount == null || order.get("amount").longValue() >= minAmount)
        .mapValues(FilterApp::project)
        .to(output, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));

    final Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, need(a, "--application-id"));
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, need(a, "--bootstrap-servers"));
    props.put(StreamsConfig.STATE_DIR_CONFIG, need(a, "--state-dir"));
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);

    final KafkaStreams streams = new KafkaStreams(builder.build(), props);
    final CountDownLatch failed = new CountDownLatch(1);
    streams.setStateListener(
        (now, before) -> {
          if (now == KafkaStreams.State.ERROR) failed.countDown();
        });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> streams.close(Duration.ofSeconds(30))));
    streams.start();
    try {
      failed.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.err.println("FilterApp: the streams client failed (see the log above)");
    System.exit(1);
  }

  private static Map<String, String> options(String[] args) {
    final Map<String, String> m = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) usage("unexpected argument " + args[i]);
      m.put(args[i], args[i + 1]);
    }
    if (args.length % 2 != 0) usage("option " + args[args.length - 1] + " needs a value");
    return m;
  }

  private static String need(Map<String, String> a, String name) {
    final String v = a.get(name);
    if (v == null) usage("missing " + name);
    return v;
  }

  private static void usage(String why) {
    System.err.println("FilterApp: " + why);
    System.err.println(
        "usage: FilterApp --bootstrap-servers B --application-id ID --input T --output T"
            + " --state-dir D [--min-amount N]");
    System.exit(2);
  }
}
