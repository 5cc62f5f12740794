// What an operator picks of the hardware that draws and encodes: the GL backend (RENDER_GL) and the H.264 encoder
// (RENDER_ENCODER). The renderer owns what each means (src/render/gl-backend.ts, src/render/ffmpeg/codecs.ts); the
// configuration only validates the names.
export const GL_SETTINGS = ['auto', 'egl', 'swiftshader'] as const;
export type GlSetting = (typeof GL_SETTINGS)[number];
export type GlBackend = Exclude<GlSetting, 'auto'>;

/** RENDER_GL's value, checked: empty is `auto`. */
export function parseGlSetting(raw: string | undefined): GlSetting {
  const v = raw || 'auto';
  if (!(GL_SETTINGS as readonly string[]).includes(v))
    throw new Error(`RENDER_GL must be one of ${GL_SETTINGS.join(', ')}, got "${v}"`);
  return v as GlSetting;
}

/**
 * The H.264 encoders an operator can ask for (RENDER_ENCODER): libx264 (the default, the bit-exact reference) or
 * NVIDIA's NVENC where an NVIDIA GPU and its driver are present.
 */
export const VIDEO_ENCODERS = ['x264', 'nvenc'] as const;
export type VideoEncoderName = (typeof VIDEO_ENCODERS)[number];
