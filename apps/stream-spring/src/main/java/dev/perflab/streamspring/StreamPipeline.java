package dev.perflab.streamspring;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Input topic -> Transform -> output topic as a Kafka Streams topology, a producer for the input
 * (POST /stream/send) and a reader of the output that keeps its last records (GET /stream/out).
 */
@Component
class StreamPipeline {
    private static final int KEPT = 200;

    private final String bootstrap;
    private final String input;
    private final String output;
    private final Deque<String> recent = new ArrayDeque<>();
    private KafkaStreams streams;
    private KafkaProducer<String, String> producer;
    private KafkaConsumer<String, String> reader;
    private Thread readerThread;
    private volatile boolean reading;
    private volatile boolean viewAssigned; // set by the reader thread: a KafkaConsumer is single-threaded

    StreamPipeline(@Value("${perflab.kafka.bootstrap}") String bootstrap, @Value("${perflab.kafka.input}") String input,
                   @Value("${perflab.kafka.output}") String output) {
        this.bootstrap = bootstrap;
        this.input = input;
        this.output = output;
    }

    @PostConstruct
    void start() throws InterruptedException, ExecutionException {
        createTopics();
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(input).mapValues(Transform::apply).to(output);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "perflab-stream-spring");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/perflab-stream-spring-"
                + ProcessHandle.current().pid());
        streams = new KafkaStreams(builder.build(), props);
        streams.start();
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
                new StringSerializer(), new StringSerializer());
        reader = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "perflab-stream-spring-view-" + ProcessHandle.current().pid(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"), new StringDeserializer(), new StringDeserializer());
        reader.subscribe(List.of(output));
        reading = true;
        readerThread = new Thread(this::read, "stream-view");
        readerThread.start();
    }

    private void createTopics() throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            for (String topic : List.of(input, output)) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        }
    }

    private void read() {
        try {
            while (reading) {
                var records = reader.poll(Duration.ofMillis(200));
                viewAssigned = !reader.assignment().isEmpty();
                for (ConsumerRecord<String, String> record : records) {
                    synchronized (recent) {
                        recent.addLast(record.value());
                        if (recent.size() > KEPT) {
                            recent.removeFirst();
                        }
                    }
                }
            }
        } catch (WakeupException e) {
            // stopping
        } finally {
            reader.close();
        }
    }

    void send(String value) throws InterruptedException, ExecutionException {
        producer.send(new ProducerRecord<>(input, value, value)).get();
    }

    List<String> recent() {
        synchronized (recent) {
            return new ArrayList<>(recent);
        }
    }

    boolean running() {
        return streams != null && streams.state() == KafkaStreams.State.RUNNING
                && viewAssigned;
    }

    @PreDestroy
    void stop() throws InterruptedException {
        reading = false;
        if (reader != null) {
            reader.wakeup();
            readerThread.join(5000);
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (streams != null) {
            // asks to leave the group, but Kafka Streams 4.1 sends no LeaveGroup for a dynamic
            // member (KAFKA-16758): an app restarted in the same JVM gets its partitions once the
            // old member's 45 s session timeout ends, as a Spring Kafka Streams app does by default
            streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(10)));
            streams.cleanUp();
        }
    }
}
