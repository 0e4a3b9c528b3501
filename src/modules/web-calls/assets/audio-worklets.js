/* Audio worklets of the web call page: the microphone to 16 kHz PCM frames, and the agent's 16 kHz PCM played
 * without gaps. Plain JavaScript, no dependency. */

const RATE = 16000;
const FRAME = 320; // 20 ms at 16 kHz

/**
 * The microphone (mono, at the context's rate) to 20 ms frames of 16 kHz 16-bit PCM: each output sample is the mean
 * of the input samples it covers (a box filter against aliasing), posted with the frame's level (RMS, 0..1).
 */
class Capture16k extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / RATE;
    this.phase = 0;
    this.acc = 0;
    this.count = 0;
    this.frame = new Int16Array(FRAME);
    this.filled = 0;
    this.energy = 0;
    this.muted = false;
    this.port.onmessage = (e) => {
      if (e.data && typeof e.data.muted === 'boolean') this.muted = e.data.muted;
    };
  }

  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      this.acc += this.muted ? 0 : channel[i];
      this.count += 1;
      this.phase += 1;
      if (this.phase < this.step) continue;
      this.phase -= this.step;
      const v = Math.max(-1, Math.min(1, this.acc / this.count));
      this.acc = 0;
      this.count = 0;
      this.energy += v * v;
      this.frame[this.filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.filled === FRAME) {
        const level = Math.sqrt(this.energy / FRAME);
        this.port.postMessage({ frame: this.frame.buffer, level }, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME);
        this.filled = 0;
        this.energy = 0;
      }
    }
    return true;
  }
}

/** Audio held before playing starts (and again after running dry): smooths the network's jitter. */
const PREBUFFER = RATE * 0.08;

/**
 * The agent's audio: 16 kHz 16-bit PCM chunks queued as they arrive, played at the context's rate (linear
 * interpolation) without gaps. A mark names the point after the audio queued so far; once played it is posted back
 * (`played`), so the page can tell the server. `clear` drops what is queued (barge-in) and gives its marks back.
 */
class Playback16k extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = RATE / sampleRate;
    this.chunks = [];
    this.offset = 0; // read position in chunks[0], fractional
    this.buffered = 0;
    this.written = 0; // samples queued since the start
    this.read = 0; // samples played since the start
    this.marks = [];
    this.playing = false;
    this.underruns = 0;
    this.port.onmessage = (e) => this.receive(e.data);
  }

  receive(m) {
    if (m.pcm) {
      const int16 = new Int16Array(m.pcm);
      const f = new Float32Array(int16.length);
      for (let i = 0; i < int16.length; i++) f[i] = int16[i] / 0x8000;
      this.chunks.push(f);
      this.buffered += f.length;
      this.written += f.length;
    } else if (m.mark) {
      this.marks.push({ at: this.written, name: m.mark });
    } else if (m.clear) {
      this.chunks = [];
      this.offset = 0;
      this.read = this.written;
      this.buffered = 0;
      this.playing = false;
      this.flushMarks();
    }
  }

  flushMarks() {
    while (this.marks.length && this.marks[0].at <= this.read) {
      this.port.postMessage({ played: this.marks.shift().name });
    }
  }

  sample(i) {
    let index = i;
    for (const chunk of this.chunks) {
      if (index < chunk.length) return chunk[index];
      index -= chunk.length;
    }
    return 0;
  }

  process(_inputs, outputs) {
    const out = outputs[0][0];
    // Starts once enough is queued, or at once when a reply's end (a mark) is queued: its tail never waits.
    if (!this.playing && (this.buffered >= PREBUFFER || (this.marks.length && this.buffered > 0)))
      this.playing = true;
    for (let i = 0; i < out.length; i++) {
      if (!this.playing || this.buffered <= 0) {
        out[i] = 0;
        continue;
      }
      const base = Math.floor(this.offset);
      const frac = this.offset - base;
      const a = this.sample(base);
      const b = this.buffered > base + 1 ? this.sample(base + 1) : a;
      out[i] = a + (b - a) * frac;
      this.offset += this.step;
      while (this.chunks.length && this.offset >= this.chunks[0].length) {
        this.offset -= this.chunks[0].length;
        this.read += this.chunks[0].length;
        this.buffered -= this.chunks[0].length;
        this.chunks.shift();
      }
      if (!this.chunks.length) {
        this.offset = 0;
        this.buffered = 0;
        this.playing = false;
        // Running dry before the reply's end (no mark due) is a gap the caller hears.
        if (!this.marks.length || this.marks[0].at > this.read) this.underruns += 1;
      }
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    const before = this.marks.length;
    this.flushMarks();
    if (before !== this.marks.length || this.underruns !== this.reported) {
      this.reported = this.underruns;
      this.port.postMessage({ underruns: this.underruns });
    }
    return true;
  }
}

registerProcessor('capture-16k', Capture16k);
registerProcessor('playback-16k', Playback16k);
