// SPDX-License-Identifier: MIT
// tests/vk/vk_interop_draw_test.cpp: reads morphkit's deformed output as a vertex buffer (position and normal at the
// offsets gpuMorphGroupOutput reports) and draws vertex i as one point on pixel (i % width, i / width).
#version 450
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 0) flat out vec3 out_position;
layout(location = 1) flat out vec3 out_normal;
layout(push_constant) uniform Push {
  uint width;
  uint height;
} push;

void main() {
  const uint x = uint(gl_VertexIndex) % push.width, y = uint(gl_VertexIndex) / push.width;
  gl_Position = vec4(2.0 * (float(x) + 0.5) / float(push.width) - 1.0, 2.0 * (float(y) + 0.5) / float(push.height) - 1.0, 0.0, 1.0);
  gl_PointSize = 1.0;
  out_position = position;
  out_normal = normal;
}
