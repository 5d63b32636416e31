import { describe, expect, it } from 'vitest';
import { TurnBatcher } from '../../src/kernel/turn-batcher.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A batcher that records its batches and resolves each item with its double once `finish` is called. */
function recording(options: ConstructorParameters<typeof TurnBatcher>[1] = {}) {
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const batcher = new TurnBatcher<number, number>(async (items) => {
    batches.push([...items]);
    await new Promise<void>((resolve) => finishers.push(resolve));
    return items.map((item) => (item < 0 ? new Error(`refused ${item}`) : item * 2));
  }, options);
  const finishAll = () => {
    for (const finish of finishers.splice(0)) finish();
  };
  return { batcher, batches, finishAll };
}

describe('TurnBatcher', () => {
  it('runs what arrives in one turn as one batch, and resolves each item with its own result', async () => {
    const { batcher, batches, finishAll } = recording();
    const answers = [1, 2, 3].map((item) => batcher.add(item));
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3]]);
    finishAll();
    expect(await Promise.all(answers)).toEqual([2, 4, 6]);
  });

  it('rejects only the items settled with an Error', async () => {
    const { batcher, finishAll } = recording();
    const answers = [4, -1, 5].map((item) => batcher.add(item));
    await nextTurn();
    finishAll();
    expect(await Promise.allSettled(answers)).toEqual([
      { status: 'fulfilled', value: 8 },
      { status: 'rejected', reason: new Error('refused -1') },
      { status: 'fulfilled', value: 10 },
    ]);
  });

  it('rejects every item of a batch whose run fails', async () => {
    const batcher = new TurnBatcher<number, number>(async () => {
      throw new Error('disk full');
    });
    const answers = [1, 2].map((item) => batcher.add(item));
    expect(await Promise.allSettled(answers)).toEqual([
      { status: 'rejected', reason: new Error('disk full') },
      { status: 'rejected', reason: new Error('disk full') },
    ]);
  });

  it('splits a turn into batches of maxBatch', async () => {
    const { batcher, batches } = recording({ maxBatch: 2, maxInFlight: 10 });
    for (const item of [1, 2, 3, 4, 5]) void batcher.add(item);
    await nextTurn();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('holds the next batch while maxInFlight run: what arrives over several turns joins it', async () => {
    const { batcher, batches, finishAll } = recording({ maxInFlight: 1 });
    void batcher.add(1);
    await nextTurn();
    for (const item of [2, 3, 4]) {
      void batcher.add(item);
      await nextTurn();
    }
    expect(batches).toEqual([[1]]);
    finishAll();
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('holds batches while ready says no, and starts them on release even if it still says no', async () => {
    let ready = false;
    const { batcher, batches } = recording({ ready: () => ready });
    void batcher.add(1);
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([]);
    batcher.release();
    await nextTurn();
    expect(batches).toEqual([[1]]);
    ready = true;
  });

  it('is idle once every item added is settled', async () => {
    const { batcher, finishAll } = recording();
    await batcher.idle();
    const answer = batcher.add(1);
    let idle = false;
    const whenIdle = batcher.idle().then(() => {
      idle = true;
    });
    await nextTurn();
    expect(idle).toBe(false);
    finishAll();
    await whenIdle;
    expect(await answer).toBe(2);
  });
});
