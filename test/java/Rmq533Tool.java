/*
 * A tiny Java program run by the tests against the Java RocketMQ 5.3.3 jars (../shared/javaref/5.3.3/lib), compiled
 * at test time by test/helpers/javaref.ts (java533ToolSkipReason). It uses Java's own classes only:
 *
 *   codec compress <ZLIB|LZ4|ZSTD> <level> (<in> <out>)...   file -> file through CompressorFactory.getCompressor(type).compress
 *   codec decompress <ZLIB|LZ4|ZSTD> (<in> <out>)...         file -> file through ...decompress
 *       prints per pair "CODEC OK <bytes written>" or "CODEC FAIL <exception>" (zstd-jni needs its native library)
 *   produce <namesrv> <topic> <ZLIB|LZ4|ZSTD> <count> <size> [namespace]
 *       DefaultMQProducer with setCompressType; body i is "body-<i>-" repeated to <size> bytes;
 *       prints "OK <i> <msgId>" per SEND_OK, then "SENT ok=<n>"
 *   produce-timer <namesrv> <topic> <delayMs>
 *       DefaultMQProducer sending three timer messages with the 5.x Message API: body "deliverMs" with
 *       setDeliverTimeMs(now + delayMs), "delaySec" with setDelayTimeSec(delayMs / 1000), "delayMs" with
 *       setDelayTimeMs(delayMs); prints "DUE <body> <epochMs>" per SEND_OK (the deliver time the client asked for)
 *   consume <namesrv> <topic> <group> <expect> <timeoutSec> [namespace]
 *       DefaultMQPushConsumer from the first offset; prints "RECV <topic> <msgId> <bodyLen> <bodyCrc32>" per message
 *       (the body as the listener sees it, decompressed), then "CONSUMED n=<distinct msgIds>"
 */
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.compression.CompressionType;
import org.apache.rocketmq.common.compression.Compressor;
import org.apache.rocketmq.common.compression.CompressorFactory;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

public class Rmq533Tool {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "codec": codec(args); break;
            case "produce": produce(args); break;
            case "produce-timer": produceTimer(args); break;
            case "consume": consume(args); break;
            default: System.err.println("unknown mode " + args[0]); System.exit(2);
        }
    }

    static byte[] readAll(InputStream in) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
        return out.toByteArray();
    }

    static void codec(String[] args) throws Exception {
        boolean compress = args[1].equals("compress");
        for (int a = compress ? 4 : 3; a + 1 < args.length; a += 2) {
            try {
                Compressor c = CompressorFactory.getCompressor(CompressionType.of(args[2]));
                byte[] in = Files.readAllBytes(Paths.get(args[a]));
                byte[] out = compress ? c.compress(in, Integer.parseInt(args[3])) : c.decompress(in);
                Files.write(Paths.get(args[a + 1]), out);
                System.out.println("CODEC OK " + out.length);
            } catch (Throwable e) {
                System.out.println("CODEC FAIL " + e.toString().replace('\n', ' '));
            }
        }
        System.out.flush();
        System.exit(0);
    }

    static byte[] body(int i, int size) {
        String unit = "body-" + i + "-";
        StringBuilder sb = new StringBuilder(size + unit.length());
        while (sb.length() < size) sb.append(unit);
        return sb.substring(0, size).getBytes(StandardCharsets.US_ASCII);
    }

    /** A started producer of `group` on `namesrv`, with a fresh instance name. */
    static DefaultMQProducer startProducer(String group, String namesrv, String namespace, CompressionType compress) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(namesrv);
        if (namespace != null) p.setNamespace(namespace);
        if (compress != null) p.setCompressType(compress);
        p.setInstanceName("rmq533tool-" + System.nanoTime());
        p.start();
        return p;
    }

    /** Shuts `p` down, prints the `SENT ok=N` line the tests read, and exits. */
    static void shutdownAndReport(DefaultMQProducer p, int ok) {
        p.shutdown();
        System.out.println("SENT ok=" + ok);
        System.out.flush();
        System.exit(0);
    }

    static void produceTimer(String[] args) throws Exception {
        DefaultMQProducer p = startProducer("PG_JAVA533_TIMER", args[1], null, null);
        long delayMs = Long.parseLong(args[3]);
        int ok = 0;
        try {
            for (String kind : new String[] {"deliverMs", "delaySec", "delayMs"}) {
                Message m = new Message(args[2], "TagA", kind.getBytes(StandardCharsets.US_ASCII));
                long sentAt = System.currentTimeMillis();
                long due;
                if (kind.equals("deliverMs")) { due = sentAt + delayMs; m.setDeliverTimeMs(due); }
                else if (kind.equals("delaySec")) { due = sentAt + (delayMs / 1000) * 1000; m.setDelayTimeSec(delayMs / 1000); }
                else { due = sentAt + delayMs; m.setDelayTimeMs(delayMs); }
                SendResult r = p.send(m);
                if (r.getSendStatus() == SendStatus.SEND_OK) { ok++; System.out.println("DUE " + kind + " " + due); }
                else System.out.println("FAIL " + kind + " " + r.getSendStatus());
                System.out.flush();
            }
        } catch (Exception e) {
            p.shutdown();
            throw e;
        }
        shutdownAndReport(p, ok);
    }

    static void produce(String[] args) throws Exception {
        DefaultMQProducer p = startProducer("PG_JAVA533_TOOL", args[1], args.length > 6 ? args[6] : null, CompressionType.of(args[3]));
        int count = Integer.parseInt(args[4]);
        int size = Integer.parseInt(args[5]);
        int ok = 0;
        try {
            for (int i = 0; i < count; i++) {
                try {
                    SendResult r = p.send(new Message(args[2], "TagA", body(i, size)));
                    if (r.getSendStatus() == SendStatus.SEND_OK) {
                        ok++;
                        System.out.println("OK " + i + " " + r.getMsgId());
                    } else {
                        System.out.println("FAIL " + i + " " + r.getSendStatus());
                    }
                } catch (Exception e) {
                    System.out.println("FAIL " + i + " " + e.toString().replace('\n', ' '));
                }
                System.out.flush();
            }
        } catch (Exception e) {
            p.shutdown();
            throw e;
        }
        shutdownAndReport(p, ok);
    }

    static void consume(String[] args) throws Exception {
        int expect = Integer.parseInt(args[4]);
        long timeoutSec = Long.parseLong(args[5]);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(1);
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(args[3]);
        c.setNamesrvAddr(args[1]);
        if (args.length > 6) c.setNamespace(args[6]);
        c.setInstanceName("rmq533tool-" + System.nanoTime());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(args[2], "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                CRC32 crc = new CRC32();
                crc.update(m.getBody());
                synchronized (System.out) {
                    System.out.println("RECV " + m.getTopic() + " " + m.getMsgId() + " " + m.getBody().length + " " + Long.toHexString(crc.getValue()));
                    System.out.flush();
                }
                seen.add(m.getMsgId());
                if (seen.size() >= expect) done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        System.out.println("STARTED");
        System.out.flush();
        done.await(timeoutSec, TimeUnit.SECONDS);
        c.shutdown();
        System.out.println("CONSUMED n=" + seen.size());
        System.out.flush();
        System.exit(0);
    }
}
