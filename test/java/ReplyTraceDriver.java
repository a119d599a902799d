// A Java 4.9.8 client driver for what the shared harness does not cover: request-reply and message trace.
// Run by test/helpers/javaref.ts runJavaDriver() with Java's single-file source launcher against the 4.9.8 jars.
//   request  --namesrv H:P --topic T --group G --count N [--timeout-ms MS]    prints REPLY <i> <body> | FAIL <i> <reason>
//   reply    --namesrv H:P --topic T --group G --expect N [--timeout S]       prints REPLIED <correlationId>, last DONE n=<n>
//   produce  --namesrv H:P --topic T --group G --count N [--trace-topic X] [--keys K] [--tag T]
//                                                                               prints OK <i> <msgId> <offsetMsgId>
//   consume  --namesrv H:P --topic T --group G --expect N [--timeout S] [--trace-topic X]
//                                                                               prints RECV <msgId>, last CONSUMED n=<n>
// produce and consume enable message trace (DefaultMQProducer/DefaultMQPushConsumer enableMsgTrace=true).
// Exit code 0 on every result path, 2 on bad arguments.
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

public class ReplyTraceDriver {
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
        switch (args[0]) {
            case "request": request(ns, topic, group, Integer.parseInt(a.getOrDefault("count", "1")), Long.parseLong(a.getOrDefault("timeout-ms", "30000"))); break;
            case "reply": reply(ns, topic, group, Integer.parseInt(a.get("expect")), Integer.parseInt(a.getOrDefault("timeout", "60"))); break;
            case "produce": produce(ns, topic, group, Integer.parseInt(a.getOrDefault("count", "1")), a.get("trace-topic"), a.get("keys"), a.get("tag")); break;
            case "consume": consume(ns, topic, group, Integer.parseInt(a.get("expect")), Integer.parseInt(a.getOrDefault("timeout", "60")), a.get("trace-topic")); break;
            default:
                System.out.println("BADARGS " + args[0]);
                System.exit(2);
        }
        System.out.flush();
        System.exit(0);
    }

    static void request(String ns, String topic, String group, int count, long timeoutMs) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(ns);
        p.setInstanceName("req-" + System.nanoTime());
        p.start();
        for (int i = 0; i < count; i++) {
            try {
                Message reply = p.request(new Message(topic, ("req" + i).getBytes(StandardCharsets.UTF_8)), timeoutMs);
                System.out.println("REPLY " + i + " " + new String(reply.getBody(), StandardCharsets.UTF_8)
                    + " " + reply.getProperty(MessageConst.PROPERTY_CORRELATION_ID));
            } catch (Exception e) {
                System.out.println("FAIL " + i + " " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
            }
            System.out.flush();
        }
        p.shutdown();
    }

    static void reply(String ns, String topic, String group, int expect, int timeoutS) throws Exception {
        DefaultMQProducer replyProducer = new DefaultMQProducer(group + "_REPLY");
        replyProducer.setNamesrvAddr(ns);
        replyProducer.setInstanceName("rep-" + System.nanoTime());
        replyProducer.start();
        CountDownLatch latch = new CountDownLatch(expect);
        Set<String> done = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(ns);
        c.setInstanceName("con-" + System.nanoTime());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                try {
                    Message reply = MessageUtil.createReplyMessage(m, ("reply:" + new String(m.getBody(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
                    SendResult r = replyProducer.send(reply, 10000);
                    String id = m.getProperty(MessageConst.PROPERTY_CORRELATION_ID);
                    System.out.println("REPLIED " + id + " " + r.getSendStatus());
                    System.out.flush();
                    if (done.add(id)) latch.countDown();
                } catch (Exception e) {
                    System.out.println("FAIL reply " + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' '));
                    System.out.flush();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        System.out.println("STARTED");
        System.out.flush();
        latch.await(timeoutS, TimeUnit.SECONDS);
        System.out.println("DONE n=" + done.size());
        c.shutdown();
        replyProducer.shutdown();
    }

    static void produce(String ns, String topic, String group, int count, String traceTopic, String keys, String tag) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group, true, traceTopic);
        p.setNamesrvAddr(ns);
        p.setInstanceName("tp-" + System.nanoTime());
        p.start();
        for (int i = 0; i < count; i++) {
            Message m = new Message(topic, tag, keys == null ? null : keys.replace("{i}", String.valueOf(i)), ("t" + i).getBytes(StandardCharsets.UTF_8));
            SendResult r = p.send(m);
            System.out.println("OK " + i + " " + r.getMsgId() + " " + r.getOffsetMsgId());
            System.out.flush();
        }
        // the trace dispatcher sends a batch within 500 ms; shutdown() flushes what is left
        Thread.sleep(1500);
        p.shutdown();
    }

    static void consume(String ns, String topic, String group, int expect, int timeoutS, String traceTopic) throws Exception {
        CountDownLatch latch = new CountDownLatch(expect);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group, true, traceTopic);
        c.setNamesrvAddr(ns);
        c.setInstanceName("tc-" + System.nanoTime());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                System.out.println("RECV " + m.getMsgId());
                System.out.flush();
                if (seen.add(m.getMsgId())) latch.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        latch.await(timeoutS, TimeUnit.SECONDS);
        Thread.sleep(1500);
        System.out.println("CONSUMED n=" + seen.size());
        c.shutdown();
    }
}
