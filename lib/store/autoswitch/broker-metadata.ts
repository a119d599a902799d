/**
 * The controller-mode identity files: `brokerIdentity` (`<cluster>#<brokerName>#<brokerId>`), written once the
 * controller granted the id, and `brokerIdentity-temp` (`<cluster>#<brokerName>#<brokerId>#<registerCheckCode>`),
 * written before the id is applied for, so a broker that dies between the two steps applies for the same id with
 * the same check code. UTF-8, no line end, byte for byte as Java writes them; a Java broker's store is read as is.
 *
 * @see org.apache.rocketmq.store.ha.autoswitch.MetadataFile
 * @see org.apache.rocketmq.store.ha.autoswitch.BrokerMetadata
 * @see org.apache.rocketmq.store.ha.autoswitch.TempBrokerMetadata
 */
import fs from 'node:fs';
import path from 'node:path';
import { MessageStoreError } from '../../errors';

export class BrokerMetadata {
  clusterName: string | null = null;
  brokerName: string | null = null;
  brokerId: number | null = null;

  constructor(readonly filePath: string) {}

  encodeToStr(): string {
    return `${this.clusterName}#${this.brokerName}#${this.brokerId}`;
  }

  decodeFromStr(data: string): void {
    const parts = data.split('#');
    if (parts.length < 3) throw new MessageStoreError(`${this.filePath}: expected cluster#brokerName#brokerId, got "${data}"`);
    const id = Number(parts[2]);
    if (!Number.isSafeInteger(id)) throw new MessageStoreError(`${this.filePath}: broker id "${parts[2]}" is not a number`);
    this.clusterName = parts[0];
    this.brokerName = parts[1];
    this.brokerId = id;
  }

  isLoaded(): boolean {
    return !!this.clusterName && !!this.brokerName && this.brokerId !== null;
  }

  clearInMem(): void {
    this.clusterName = null;
    this.brokerName = null;
    this.brokerId = null;
  }

  async updateAndPersist(clusterName: string, brokerName: string, brokerId: number): Promise<void> {
    this.clusterName = clusterName;
    this.brokerName = brokerName;
    this.brokerId = brokerId;
    await this.writeToFile();
  }

  /** Writes through a temporary file and a rename (Java deletes and rewrites; the bytes are the same). */
  async writeToFile(): Promise<void> {
    await fs.promises.mkdir(path.dirname(this.filePath), { recursive: true });
    const tmp = `${this.filePath}.tmp`;
    const fh = await fs.promises.open(tmp, 'w');
    try {
      await fh.writeFile(this.encodeToStr(), 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, this.filePath);
  }

  /** Reads the file when it exists (a missing file leaves this unloaded, as Java). */
  async readFromFile(): Promise<void> {
    let data: string;
    try {
      data = await fs.promises.readFile(this.filePath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    this.decodeFromStr(data);
  }

  fileExists(): boolean {
    return fs.existsSync(this.filePath);
  }

  /** Forgets the values and deletes the file. */
  async clear(): Promise<void> {
    this.clearInMem();
    await fs.promises.rm(this.filePath, { force: true });
  }
}

export class TempBrokerMetadata extends BrokerMetadata {
  registerCheckCode: string | null = null;

  override encodeToStr(): string {
    return `${super.encodeToStr()}#${this.registerCheckCode}`;
  }

  override decodeFromStr(data: string): void {
    super.decodeFromStr(data);
    const parts = data.split('#');
    if (parts.length < 4) throw new MessageStoreError(`${this.filePath}: expected cluster#brokerName#brokerId#checkCode, got "${data}"`);
    this.registerCheckCode = parts[3];
  }

  override isLoaded(): boolean {
    return super.isLoaded() && !!this.registerCheckCode;
  }

  override clearInMem(): void {
    super.clearInMem();
    this.registerCheckCode = null;
  }

  async updateAndPersistTemp(clusterName: string, brokerName: string, brokerId: number, registerCheckCode: string): Promise<void> {
    this.registerCheckCode = registerCheckCode;
    await super.updateAndPersist(clusterName, brokerName, brokerId);
  }
}
