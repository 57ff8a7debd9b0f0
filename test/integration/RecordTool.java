// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// Byte-exact produce and dump for keys_headers_timestamps.sh, with the Java
// client (independent of the librdkafka under test). tools/kafka-local's
// produce takes neither headers nor timestamps, and its dump decodes keys
// as UTF-8, which loses a binary key; this tool carries every byte in hex.
//
// Run in source-file mode against the jars tools/kafka-local verified:
//   java -cp "$CACHE/jars/*" RecordTool.java produce BOOTSTRAP TOPIC < records
//   java -cp "$CACHE/jars/*" RecordTool.java dump BOOTSTRAP TOPIC
//
// A record is one JSON object a line, in and out:
//   {"partition": 0, "offset": 5, "tstype": "create", "ts": 1500000000000,
//    "key": "ff00" | null, "value": "6869" | null,
//    "headers": [["name", "hex" | null], ...]}
// key, value and header values are hex; null means a null field. On produce,
// partition and ts are optional and offset and tstype are ignored. dump reads
// read_committed from the start of every partition to its last stable offset
// taken at the start, sorted by partition then offset.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class RecordTool {
  private static final Duration call_timeout = Duration.ofSeconds(30);
  private static final ObjectMapper mapper = new ObjectMapper();
  private static final HexFormat hex = HexFormat.of();

  public static void main(String[] args) throws Exception {
    if (args.length != 3 || !(args[0].equals("produce") || args[0].equals("dump"))) {
      System.err.println("usage: RecordTool produce|dump BOOTSTRAP TOPIC");
      System.exit(2);
    }
    System.exit(args[0].equals("produce") ? produce(args[1], args[2]) : dump(args[1], args[2]));
  }

  private static byte[] bytes(JsonNode node) {
    return node == null || node.isNull() ? null : hex.parseHex(node.asText());
  }

  private static JsonNode hexOrNull(byte[] b) {
    return b == null ? mapper.nullNode() : mapper.getNodeFactory().textNode(hex.formatHex(b));
  }

  private static int produce(String bootstrap, String topic) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        JsonNode r = mapper.readTree(line);
        List<Header> headers = new ArrayList<>();
        if (r.has("headers")) {
          for (JsonNode h : r.get("headers")) headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
        }
        Integer partition = r.hasNonNull("partition") ? r.get("partition").asInt() : null;
        Long ts = r.hasNonNull("ts") ? r.get("ts").asLong() : null;
        // Synchronous: a failed send ends the tool with a non-zero status.
        producer.send(new ProducerRecord<>(topic, partition, ts, bytes(r.get("key")), bytes(r.get("value")), headers))
            .get(30, TimeUnit.SECONDS);
      }
    }
    return 0;
  }

  private static int dump(String bootstrap, String topic) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, call_timeout);
      if (infos == null || infos.isEmpty()) {
        System.err.println("RecordTool: topic '" + topic + "' does not exist");
        return 3;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : infos) partitions.add(new TopicPartition(topic, p.partition()));
      consumer.assign(partitions);
      // Under read_committed the end offsets are the last stable offsets.
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, call_timeout);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + call_timeout.toNanos();
      while (true) {
        boolean done = true;
        for (TopicPartition tp : partitions) done &= consumer.position(tp, call_timeout) >= end.get(tp);
        if (done) break;
        if (System.nanoTime() > deadline) {
          System.err.println("RecordTool: dump of '" + topic + "' did not reach the end offsets " + end);
          return 1;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) records.add(r);
        }
      }
    }
    records.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                                                          : Long.compare(a.offset(), b.offset()));
    for (ConsumerRecord<byte[], byte[]> r : records) {
      ObjectNode node = mapper.createObjectNode();
      node.put("partition", r.partition());
      node.put("offset", r.offset());
      node.put("tstype", r.timestampType() == TimestampType.LOG_APPEND_TIME ? "logappend" : "create");
      node.put("ts", r.timestamp());
      node.set("key", hexOrNull(r.key()));
      node.set("value", hexOrNull(r.value()));
      ArrayNode headers = node.putArray("headers");
      for (Header h : r.headers()) {
        ArrayNode pair = headers.addArray();
        pair.add(h.key());
        pair.add(hexOrNull(h.value()));
      }
      System.out.println(mapper.writeValueAsString(node));
    }
    return 0;
  }
}
