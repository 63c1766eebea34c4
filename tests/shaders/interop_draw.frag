// SPDX-License-Identifier: MIT
// tests/vk/vk_interop_draw_test.cpp: writes the vertex's attributes, unchanged, into two float attachments.
#version 450
layout(location = 0) flat in vec3 in_position;
layout(location = 1) flat in vec3 in_normal;
layout(location = 0) out vec4 position;
layout(location = 1) out vec4 normal;

void main() {
  position = vec4(in_position, 1.0);
  normal = vec4(in_normal, 1.0);
}
