// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The streamt authors

// The two read-only checks tests make against the local broker, with exact
// answers instead of the console tools' guesses:
//
//   dump BOOTSTRAP TOPIC read_committed|read_uncommitted tsv|json NULL_MARKER
//     Every record of every partition from the log start up to the end
//     offsets taken when the dump starts (for read_committed that is the last
//     stable offset), sorted by partition and offset. ConsoleConsumer instead
//     stops after a quiet period, so a slow group join looks like an empty
//     topic and a test checking "no extra output" would pass wrongly.
//   offsets BOOTSTRAP GROUP
//     The group's committed offsets as TOPIC<TAB>PARTITION<TAB>OFFSET, sorted.
//     An unknown group is an error (ConsumerGroupCommand exits 0 for it).
//   members BOOTSTRAP GROUP
//     The client ids of the group's current members, one per line, sorted.
//   instances BOOTSTRAP GROUP
//     Their group.instance.id (static membership), "-" for a dynamic member.
//   where BOOTSTRAP leader TOPIC PARTITION | group GROUP | transaction ID
//     The node id of the partition's leader, of the group's coordinator, or
//     of the transactional id's coordinator: what a cluster fault test kills.
//   where BOOTSTRAP under-replicated
//     The partitions (all topics) short of in-sync replicas, TOPIC<TAB>PARTITION.
//
// Exit codes: 0 done, 1 usage, 2 Kafka error or timeout, 3 no such topic or
// group. tools/kafka-local compiles this once per source version into its
// cache (javac from the JDK the broker runs on) and runs it there.
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class KafkaLocalTool {
  private static final Duration call_timeout = Duration.ofSeconds(30);
  private static final Duration dump_deadline = Duration.ofSeconds(60);

  private KafkaLocalTool() {}

  public static void main(String[] args) {
    int status;
    try {
      if (args.length == 6 && args[0].equals("dump")) {
        status = dump(args[1], args[2], args[3], args[4].equals("json"), args[5]);
      } else if (args.length == 3 && args[0].equals("offsets")) {
        status = offsets(args[1], args[2]);
      } else if (args.length == 3 && args[0].equals("members")) {
        status = members(args[1], args[2], false);
      } else if (args.length == 3 && args[0].equals("instances")) {
        status = members(args[1], args[2], true);
      } else if (args.length >= 3 && args[0].equals("where")) {
        status = where(args);
      } else {
        System.err.println("usage: KafkaLocalTool dump BOOTSTRAP TOPIC ISOLATION tsv|json NULL_MARKER"
            + " | offsets BOOTSTRAP GROUP | members|instances BOOTSTRAP GROUP"
            + " | where BOOTSTRAP leader TOPIC PARTITION|group GROUP|transaction ID|under-replicated");
        status = 1;
      }
    } catch (Exception e) {
      System.err.println("kafka-local: " + e);
      status = 2;
    }
    System.out.flush();
    System.exit(status);
  }

  private static int dump(String bootstrap, String topic, String isolation, boolean json,
      String nullMarker) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    // No group.id: partitions are assigned directly, so a dump neither joins
    // nor commits to any group a test looks at.
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, call_timeout);
      if (infos == null || infos.isEmpty()) {
        System.err.println("kafka-local: topic '" + topic + "' does not exist");
        return 3;
      }
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : infos) {
        partitions.add(new TopicPartition(topic, info.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, call_timeout);
      long deadline = System.nanoTime() + dump_deadline.toNanos();
      while (!reachedEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          System.err.println("kafka-local: dump of '" + topic + "' did not reach the end offsets "
              + end + " within " + dump_deadline.toSeconds() + " s");
          return 2;
        }
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          // Records written after the dump started are not part of it.
          if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
            records.add(record);
          }
        }
      }
    }
    records.sort(Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
        .thenComparingLong(ConsumerRecord::offset));
    ObjectMapper mapper = new ObjectMapper();
    StringBuilder out = new StringBuilder();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      if (json) {
        out.append(envelope(mapper, record)).append('\n');
      } else {
        out.append(record.partition()).append('\t').append(record.offset()).append('\t')
            .append(text(record.key(), nullMarker)).append('\t')
            .append(text(record.value(), nullMarker)).append('\n');
      }
    }
    System.out.print(out);
    return 0;
  }

  private static boolean reachedEnd(KafkaConsumer<byte[], byte[]> consumer,
      Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> entry : end.entrySet()) {
      if (consumer.position(entry.getKey(), call_timeout) < entry.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static String text(byte[] bytes, String nullMarker) {
    return bytes == null ? nullMarker : new String(bytes, StandardCharsets.UTF_8);
  }

  // The field names and shapes of kcat's -J envelope, which is what
  // `streamt replay` reads, so a dump can be fed back to it.
  private static String envelope(ObjectMapper mapper, ConsumerRecord<byte[], byte[]> record) {
    ObjectNode node = mapper.createObjectNode();
    node.put("topic", record.topic());
    node.put("partition", record.partition());
    node.put("offset", record.offset());
    node.put("tstype", record.timestampType().id == 1 ? "logappend" : "create");
    node.put("ts", record.timestamp());
    ArrayNode headers = node.putArray("headers");
    for (Header header : record.headers()) {
      headers.add(header.key());
      if (header.value() == null) {
        headers.addNull();
      } else {
        headers.add(new String(header.value(), StandardCharsets.UTF_8));
      }
    }
    if (record.key() == null) {
      node.putNull("key");
    } else {
      node.put("key", new String(record.key(), StandardCharsets.UTF_8));
    }
    if (record.value() == null) {
      node.putNull("payload");
    } else {
      node.put("payload", new String(record.value(), StandardCharsets.UTF_8));
    }
    return node.toString();
  }

  private static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
        Integer.toString((int) call_timeout.toMillis()));
    return Admin.create(props);
  }

  private static int members(String bootstrap, String group, boolean instances) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      List<String> ids = new ArrayList<>();
      for (var member : admin.describeConsumerGroups(List.of(group)).describedGroups().get(group)
               .get(call_timeout.toMillis(), TimeUnit.MILLISECONDS).members()) {
        ids.add(instances ? member.groupInstanceId().orElse("-") : member.clientId());
      }
      ids.sort(Comparator.naturalOrder());
      for (String id : ids) {
        System.out.println(id);
      }
      return 0;
    }
  }

  private static int offsets(String bootstrap, String group) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      try {
        GroupState state = admin.describeConsumerGroups(List.of(group)).describedGroups()
            .get(group).get(call_timeout.toMillis(), TimeUnit.MILLISECONDS).groupState();
        if (state == GroupState.DEAD) {
          System.err.println("kafka-local: consumer group '" + group + "' does not exist");
          return 3;
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof GroupIdNotFoundException) {
          System.err.println("kafka-local: consumer group '" + group + "' does not exist");
          return 3;
        }
        throw e;
      }
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(call_timeout.toMillis(), TimeUnit.MILLISECONDS);
      Map<String, TopicPartition> sorted = new TreeMap<>();
      for (TopicPartition partition : committed.keySet()) {
        sorted.put(String.format("%s\t%010d", partition.topic(), partition.partition()), partition);
      }
      StringBuilder out = new StringBuilder();
      for (TopicPartition partition : sorted.values()) {
        OffsetAndMetadata offset = committed.get(partition);
        out.append(partition.topic()).append('\t').append(partition.partition()).append('\t')
            .append(offset == null ? "-" : Long.toString(offset.offset())).append('\n');
      }
      System.out.print(out);
    }
    return 0;
  }

  private static int where(String[] args) throws Exception {
    final long wait = call_timeout.toMillis();
    try (Admin admin = admin(args[1])) {
      int node;
      if (args.length == 5 && args[2].equals("leader")) {
        int partition = Integer.parseInt(args[4]);
        var description = admin.describeTopics(List.of(args[3])).allTopicNames()
            .get(wait, TimeUnit.MILLISECONDS).get(args[3]);
        var info = description.partitions().stream().filter(p -> p.partition() == partition).findFirst();
        if (info.isEmpty() || info.get().leader() == null) {
          System.err.println("kafka-local: " + args[3] + "/" + partition + " has no leader");
          return 3;
        }
        node = info.get().leader().id();
      } else if (args.length == 4 && args[2].equals("group")) {
        node = admin.describeConsumerGroups(List.of(args[3])).describedGroups().get(args[3])
            .get(wait, TimeUnit.MILLISECONDS).coordinator().id();
      } else if (args.length == 3 && args[2].equals("under-replicated")) {
        // Every partition with fewer in-sync replicas than replicas, as
        // TOPIC<TAB>PARTITION lines: a rolling restart waits for none.
        var names = admin.listTopics().names().get(wait, TimeUnit.MILLISECONDS);
        var topics = admin.describeTopics(names).allTopicNames().get(wait, TimeUnit.MILLISECONDS);
        List<String> lines = new ArrayList<>();
        for (var topic : topics.values()) {
          for (var info : topic.partitions()) {
            if (info.isr().size() < info.replicas().size()) {
              lines.add(topic.name() + "\t" + info.partition());
            }
          }
        }
        lines.sort(Comparator.naturalOrder());
        for (String line : lines) {
          System.out.println(line);
        }
        return 0;
      } else if (args.length == 4 && args[2].equals("transaction")) {
        node = admin.describeTransactions(List.of(args[3])).description(args[3])
            .get(wait, TimeUnit.MILLISECONDS).coordinatorId();
      } else {
        System.err.println(
            "usage: where BOOTSTRAP leader TOPIC PARTITION|group GROUP|transaction ID|under-replicated");
        return 1;
      }
      System.out.println(node);
      return 0;
    }
  }
}
