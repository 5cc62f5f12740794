// The name a file saved from the page gets: the scene's own (`scene title_card()` saves `title-card.mp4`), never the
// service's job id, so a folder of downloads says what each one is. The first scene declared is the one rendered
// (docs/compatibility.md, "which binding renders"); a source with none is saved as `scene.EXT`.

const SCENE = /(?:^|\n)[ \t]*(?:export[ \t]+)?scene[ \t]+([A-Za-z_][A-Za-z0-9_]*)/;

/** `title-card.mp4` for a source whose first scene is `title_card`; `scene.mp4` when it declares none. */
export function sceneFileName(source: string, extension: string): string {
  const name = SCENE.exec(source)?.[1]
    ?.replace(/_+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${name || 'scene'}.${extension}`;
}
