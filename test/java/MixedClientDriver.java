// A Java 4.9.8 client driver for the tests and compat rows where a Java client shares a topic with a 5.x gRPC client
// (rocketmq-client-nodejs) on our broker: it sends bodies the other side can rebuild, and prints what it consumed with
// every property, which the shared harness does not.
// Run by test/helpers/javaref.ts runJavaSource('4.9.8', 'MixedClientDriver.java', ...) on the 4.9.8 client jars.
//   produce --namesrv H:P --topic T --group G --count N [--tag T] [--keys 'k{i}'] [--prop 'name=value{i}'] [--size B]
//       body i: mixedBody(i, B) below; prints OK <i> <msgId> <queueId> | FAIL <i> <reason>, last SENT ok=<n> fail=<n>
//   consume --namesrv H:P --topic T --group G --expect N [--timeout S] [--tag-expr 'A || B']
//       prints RECV <msgId> <tags|-> <keys|-> <reconsumeTimes> <bodyLen> <bodyMd5> <properties>, properties as
//       name=value pairs (URL-encoded, sorted, joined by '&'); last CONSUMED n=<distinct msgIds>
// Exit code 0 on every result path, 2 on bad arguments.
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

public class MixedClientDriver {
    static Map<String, String> parse(String[] args) {
        Map<String, String> m = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                System.out.println("BADARGS " + args[i]);
                System.exit(2);
            }
            m.put(args[i].substring(2), args[i + 1]);
        }
        return m;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.out.println("BADARGS none");
            System.exit(2);
        }
        Map<String, String> a = parse(args);
        String ns = a.get("namesrv"), topic = a.get("topic"), group = a.get("group");
        if (ns == null || topic == null || group == null) {
            System.out.println("BADARGS --namesrv, --topic and --group are required");
            System.exit(2);
        }
        switch (args[0]) {
            case "produce":
                produce(ns, topic, group, Integer.parseInt(a.getOrDefault("count", "1")), a.get("tag"), a.get("keys"), a.get("prop"),
                    Integer.parseInt(a.getOrDefault("size", "0")));
                break;
            case "consume":
                consume(ns, topic, group, Integer.parseInt(a.get("expect")), Integer.parseInt(a.getOrDefault("timeout", "60")), a.getOrDefault("tag-expr", "*"));
                break;
            default:
                System.out.println("BADARGS " + args[0]);
                System.exit(2);
        }
        System.out.flush();
        System.exit(0);
    }

    /** Body i: "java body <i> " then bytes (k * 31 + i) & 0xff up to `size` (the text alone when size is smaller). */
    static byte[] mixedBody(int i, int size) {
        byte[] head = ("java body " + i + " ").getBytes(StandardCharsets.UTF_8);
        if (size <= head.length) return head;
        byte[] b = new byte[size];
        System.arraycopy(head, 0, b, 0, head.length);
        for (int k = head.length; k < size; k++) b[k] = (byte) ((k * 31 + i) & 0xff);
        return b;
    }

    static String expand(String pattern, int i) {
        return pattern == null ? null : pattern.replace("{i}", String.valueOf(i));
    }

    static void produce(String ns, String topic, String group, int count, String tag, String keys, String prop, int size) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(ns);
        p.setInstanceName("mp-" + System.nanoTime());
        p.setSendMsgTimeout(15000);
        p.start();
        int ok = 0, fail = 0;
        for (int i = 0; i < count; i++) {
            Message m = new Message(topic, tag, expand(keys, i), mixedBody(i, size));
            if (prop != null) {
                int eq = prop.indexOf('=');
                m.putUserProperty(prop.substring(0, eq), expand(prop.substring(eq + 1), i));
            }
            try {
                SendResult r = p.send(m);
                if (r.getSendStatus() == SendStatus.SEND_OK) {
                    ok++;
                    System.out.println("OK " + i + " " + r.getMsgId() + " " + r.getMessageQueue().getQueueId());
                } else {
                    fail++;
                    System.out.println("FAIL " + i + " " + r.getSendStatus());
                }
            } catch (Exception e) {
                fail++;
                System.out.println("FAIL " + i + " " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
            }
            System.out.flush();
        }
        System.out.println("SENT ok=" + ok + " fail=" + fail);
        p.shutdown();
    }

    static String md5(byte[] body) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (byte x : MessageDigest.getInstance("MD5").digest(body)) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static String properties(MessageExt m) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(m.getProperties()).entrySet()) {
            if (sb.length() > 0) sb.append('&');
            sb.append(URLEncoder.encode(e.getKey(), "UTF-8")).append('=').append(URLEncoder.encode(e.getValue(), "UTF-8"));
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }

    static void consume(String ns, String topic, String group, int expect, int timeoutS, String tagExpr) throws Exception {
        CountDownLatch latch = new CountDownLatch(expect);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(ns);
        c.setInstanceName("mc-" + System.nanoTime());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, tagExpr);
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            try {
                for (MessageExt m : msgs) {
                    String tags = m.getTags() == null ? "-" : m.getTags();
                    String keys = m.getKeys() == null ? "-" : m.getKeys().replace(' ', ',');
                    System.out.println("RECV " + m.getMsgId() + " " + tags + " " + keys + " " + m.getReconsumeTimes() + " "
                        + m.getBody().length + " " + md5(m.getBody()) + " " + properties(m));
                    System.out.flush();
                    if (seen.add(m.getMsgId())) latch.countDown();
                }
            } catch (Exception e) {
                System.out.println("FAIL consume " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
                System.out.flush();
                return ConsumeConcurrentlyStatus.RECONSUME_LATER;
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        System.out.println("STARTED");
        System.out.flush();
        latch.await(timeoutS, TimeUnit.SECONDS);
        System.out.println("CONSUMED n=" + seen.size());
        c.shutdown();
    }
}
