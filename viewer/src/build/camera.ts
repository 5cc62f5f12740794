// Which camera draws the frame (viewer.md §3.1, quirk Q2). Every cmotion runner ignores render3d(camera:) and draws
// from the fixed camera (fov 28°, 6 world units: 2165.82 px at a 1080 px frame); the gallery writes that camera
// rounded to a pixel, `camera(distance: 2166)`. A camera within a pixel of the fixed one at the frame's height is
// therefore the fixed one, exactly, so such a source draws the runner's bytes; any other camera is honoured (ours:
// docs/compatibility.md says why).
import type { CameraSettings } from './context.js';
import type { DesignFrame } from './frame.js';
import { CAM_Z, FOV } from './frame.js';

export interface ChosenCamera {
  fovDeg: number;
  /** world units from the origin along +z */
  z: number;
}

const FIXED: ChosenCamera = { fovDeg: FOV, z: CAM_Z };
const halfTan = (deg: number) => Math.tan(((deg / 2) * Math.PI) / 180);

export function chosenCamera(asked: CameraSettings | null, frame: DesignFrame): ChosenCamera {
  if (!asked) return FIXED;
  const fovDeg = asked.fovDeg ?? FOV;
  const z = asked.distancePx != null ? asked.distancePx * frame.p2w : CAM_Z;
  // the distance within a pixel of the fixed one, and the plane z = 0 framed within a pixel at the frame's edge
  const distanceOffPx = Math.abs(z - CAM_Z) / frame.p2w;
  const edgeOffPx = Math.abs((CAM_Z * halfTan(FOV)) / (z * halfTan(fovDeg)) - 1) * (frame.heightPx / 2);
  return distanceOffPx <= 1 && edgeOffPx <= 1 ? FIXED : { fovDeg, z };
}
