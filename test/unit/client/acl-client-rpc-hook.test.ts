import { expect } from 'chai';
import { RemotingCommand } from '../../../protocol/remoting-command';
import { AclClientRPCHook, calculateSignature } from '../../../lib/client/acl/acl-client-rpc-hook';
import { frameIndex, readFrame } from '../../helpers/golden';

describe('lib/client/acl AclClientRPCHook', () => {
  it('reproduces the signatures a Java 4.9.8 client put on its requests', () => {
    // 08-acl: accessKey rocketmqts / secret 12345678; one client signed with a wrong secret.
    const byConnection = new Map<string, boolean[]>();
    for (const entry of frameIndex('08-acl')) {
      if (entry.dir !== 'c2s') continue;
      const cmd = RemotingCommand.decodeFrame(readFrame('08-acl', entry.file));
      const ext = cmd.extFields;
      if (!ext || !ext.Signature) continue;
      const conn = entry.file.split('/')[0];
      const list = byConnection.get(conn) ?? [];
      list.push(calculateSignature(ext, cmd.body, '12345678') === ext.Signature);
      byConnection.set(conn, list);
    }
    const all = [...byConnection.values()].flat();
    expect(all.length).to.be.greaterThan(40);
    // Every connection is consistent: either every request was signed with the right secret, or none was.
    for (const [conn, results] of byConnection) {
      expect(new Set(results).size, conn).to.equal(1);
    }
    expect(all.filter(Boolean).length).to.be.greaterThan(all.length / 2);
  });

  it('signs a request in place, body included', () => {
    const hook = new AclClientRPCHook({ accessKey: 'ak', secretKey: 'sk', securityToken: 'tok' });
    const req = RemotingCommand.createRequest(310, { b: 'T', a: 'G' }, Buffer.from('body'));
    hook.doBeforeRequest('127.0.0.1:10911', req);
    expect(req.extFields).to.include({ AccessKey: 'ak', SecurityToken: 'tok' });
    const sig = req.extFields!.Signature;
    expect(sig).to.equal(calculateSignature({ a: 'G', b: 'T', AccessKey: 'ak', SecurityToken: 'tok' }, Buffer.from('body'), 'sk'));
    expect(calculateSignature(req.extFields!, Buffer.from('bodY'), 'sk')).to.not.equal(sig);
  });
});
