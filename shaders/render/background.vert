// SPDX-License-Identifier: MIT
// background.vert — one triangle covering the viewport at the far plane (depth 1), for --background environment.
#version 450

layout(location = 0) out vec2 outClip;

void main() {
  vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)) * 2.0 - 1.0;
  outClip = p;
  gl_Position = vec4(p, 1.0, 1.0);
}
