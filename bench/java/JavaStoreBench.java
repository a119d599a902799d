/*
 * The Java 4.9.8 store fed the messages bench/store.ts feeds ours: `JavaStoreBench <dir> <ASYNC_FLUSH|SYNC_FLUSH>
 * <count> <inFlight> [warmupCount]`. Run by bench/store.ts through test/java/run-java-source.sh (Java's source launcher
 * on ../shared/javaref/4.9.8's jars).
 *
 * Each message is what bench/store.ts puts: topic BenchTopic, queue i % 4, an 874-byte body, properties
 * "TAGS\u0001a\u0002", IPv4 born and store hosts: about 1 KiB per stored record. They go through
 * DefaultMessageStore.asyncPutMessage with at most `inFlight` unanswered, from one thread, as the broker's send thread
 * puts them (sendMessageThreadPoolNums=1). A warm-up of `warmupCount` messages into a store of its own comes first, so
 * the JIT has compiled the put path, as it has in a broker that has run for a while.
 *
 * Prints one JSON line per measurement, StoreBenchRow's fields:
 *   "Java store append <flush> x<inFlight>": from the first put to the last put's answer (what a broker acknowledges);
 *   "Java store append <flush> x<inFlight>, dispatched": until the consume queues hold every message too (Java
 *   builds them on a thread of its own, ReputMessageService; ours builds them inside the put).
 */
import java.io.File;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.store.MessageExtBrokerInner;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.PutMessageResult;
import org.apache.rocketmq.store.PutMessageStatus;
import org.apache.rocketmq.store.config.FlushDiskType;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.stats.BrokerStatsManager;

public class JavaStoreBench {
    static final String TOPIC = "BenchTopic";
    static final int QUEUES = 4;

    static DefaultMessageStore open(String dir, FlushDiskType flush) throws Exception {
        MessageStoreConfig cfg = new MessageStoreConfig();
        cfg.setStorePathRootDir(dir);
        cfg.setStorePathCommitLog(dir + File.separator + "commitlog");
        cfg.setMappedFileSizeCommitLog(256 * 1024 * 1024);
        cfg.setMaxHashSlotNum(100000);
        cfg.setMaxIndexNum(400000);
        cfg.setMessageIndexEnable(false);
        cfg.setFlushDiskType(flush);
        DefaultMessageStore store = new DefaultMessageStore(cfg, new BrokerStatsManager("bench", false), null, new BrokerConfig());
        if (!store.load()) throw new IllegalStateException("the store did not load");
        store.start();
        return store;
    }

    static MessageExtBrokerInner message(int i, byte[] body, InetSocketAddress host) {
        MessageExtBrokerInner m = new MessageExtBrokerInner();
        m.setTopic(TOPIC);
        m.setQueueId(i % QUEUES);
        m.setFlag(0);
        m.setBody(body);
        m.setPropertiesString("TAGS\u0001a\u0002");
        m.setTagsCode("a".hashCode());
        m.setBornTimestamp(System.currentTimeMillis());
        m.setBornHost(host);
        m.setStoreHost(host);
        m.setSysFlag(0);
        m.setReconsumeTimes(0);
        m.setPreparedTransactionOffset(0);
        return m;
    }

    /** Puts `count` messages with at most `inFlight` unanswered; returns {nanos to the last answer, bytes, failures}. */
    static long[] run(DefaultMessageStore store, int count, int inFlight) throws Exception {
        byte[] body = new byte[1024 - 150];
        java.util.Arrays.fill(body, (byte) 7);
        InetSocketAddress host = new InetSocketAddress("127.0.0.1", 1);
        Semaphore window = new Semaphore(inFlight);
        AtomicLong bytes = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong lastAnswer = new AtomicLong();
        long t0 = System.nanoTime();
        for (int i = 0; i < count; i++) {
            window.acquire();
            CompletableFuture<PutMessageResult> f = store.asyncPutMessage(message(i, body, host));
            f.whenComplete((r, e) -> {
                if (e == null && r.getPutMessageStatus() == PutMessageStatus.PUT_OK) bytes.addAndGet(r.getAppendMessageResult().getWroteBytes());
                else failed.incrementAndGet();
                lastAnswer.set(System.nanoTime());
                window.release();
            });
        }
        window.acquire(inFlight);
        return new long[] {lastAnswer.get() - t0, bytes.get(), failed.get()};
    }

    static void print(String scenario, int messages, long bytes, long nanos) {
        double seconds = nanos / 1e9;
        double mb = bytes / 1048576.0;
        System.out.println(String.format(java.util.Locale.ROOT,
            "{\"scenario\":\"%s\",\"messages\":%d,\"megabytes\":%.3f,\"seconds\":%.6f,\"mbPerSec\":%.3f,\"msgPerSec\":%.1f}",
            scenario, messages, mb, seconds, mb / seconds, messages / seconds));
    }

    static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) for (File c : children) deleteTree(c);
        f.delete();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: JavaStoreBench <dir> <ASYNC_FLUSH|SYNC_FLUSH> <count> <inFlight> [warmupCount]");
            System.exit(2);
        }
        String dir = args[0];
        FlushDiskType flush = FlushDiskType.valueOf(args[1]);
        int count = Integer.parseInt(args[2]);
        int inFlight = Integer.parseInt(args[3]);
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        if (warmup > 0) {
            String wdir = dir + "-warmup";
            DefaultMessageStore w = open(wdir, flush);
            run(w, warmup, inFlight);
            w.shutdown();
            w.destroy();
            deleteTree(new File(wdir));
        }
        DefaultMessageStore store = open(dir, flush);
        long t0 = System.nanoTime();
        long[] r = run(store, count, inFlight);
        if (r[2] > 0) System.err.println("failed puts: " + r[2]);
        String name = "Java store append " + flush + " x" + inFlight;
        print(name, count, r[1], r[0]);
        while (store.dispatchBehindBytes() > 0) Thread.sleep(1);
        print(name + ", dispatched", count, r[1], System.nanoTime() - t0);
        store.shutdown();
        store.destroy();
        deleteTree(new File(dir));
        System.exit(0);
    }
}
