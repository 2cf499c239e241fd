//! Spheres drawn as impostors: one quad per sphere, facing the eye and just large enough to
//! hold the sphere's outline, on which a fragment shader casts each pixel's ray at the sphere.
//! A pixel whose ray misses is discarded; one that hits is lit at the exact normal there, with
//! the same light as the meshes ([`Light::intensity`]) and the same darker quarter-segments
//! turning with the body, so that a rolling ball shows it.
//!
//! Why: under software GL (Mesa's llvmpipe, as in CI and on a machine without a GPU) the cost of
//! a frame is per triangle, not per pixel. `joint_grid`'s 2,500 spheres as meshes of 144
//! triangles were 360,000 triangles and ~42 ms a frame at one sample per pixel; as impostors
//! they are 5,000. The price: a sphere's depth is that of its quad (through its centre), so
//! two spheres that overlap meet along a plane rather than a curve, and its outline is not
//! smoothed by multisampling (the pixels are discarded, not covered). The viewer uses them for
//! scenes of many spheres, where each is small on screen (see `SceneView::new`).

use macroquad::material::MaterialParams;
use macroquad::material::{gl_use_default_material, gl_use_material, load_material, Material};
use macroquad::miniquad::ShaderSource;
use macroquad::miniquad::{Comparison, PipelineParams, UniformDesc, UniformType};
use macroquad::models::Vertex;
use macroquad::prelude::{Color, Quat, Vec2, Vec3, Vec4};

use crate::render::{Batch, Light};

/// What the vertex shader hands the fragment shader: the quad's point and the eye, both from
/// the sphere's centre; the unlit colour; the body's rotation; the radius. One text for both
/// shaders, which must declare the same.
macro_rules! varyings {
    () => {
        "
varying vec3 offset;
varying vec3 origin;
varying vec4 colour;
varying vec4 turn;
varying float radius;
"
    };
}

/// Per vertex: `position` the sphere's centre, `texcoord` the quad's corner times the radius
/// (so `|texcoord.x|` is the radius), `color0` the unlit colour, `normal` the body's rotation
/// as a quaternion (x, y, z, w).
const VERTEX: &str = concat!(
    r#"#version 100
attribute vec3 position;
attribute vec2 texcoord;
attribute vec4 color0;
attribute vec4 normal;

uniform mat4 Model;
uniform mat4 Projection;
uniform vec3 Eye;
uniform vec3 Up;
"#,
    varyings!(),
    r#"
void main() {
    float r = abs(texcoord.x);
    vec3 to_eye = Eye - position;
    float d2 = dot(to_eye, to_eye);
    // The cone from the eye touching the sphere meets the plane through the centre, facing
    // the eye, in a circle of radius r d / sqrt(d^2 - r^2): the quad's half side. An eye
    // inside the sphere sees nothing of it.
    float half_side = d2 > 1.0001 * r * r ? r * sqrt(d2 / (d2 - r * r)) : 0.0;
    vec3 w = to_eye * inversesqrt(max(d2, 1e-12));
    vec3 u = cross(Up, w);
    u = dot(u, u) > 1e-8 ? normalize(u) : normalize(cross(vec3(1.0, 0.0, 0.0), w));
    vec3 v = cross(w, u);
    offset = (u * sign(texcoord.x) + v * sign(texcoord.y)) * half_side;
    origin = to_eye;
    colour = color0 / 255.0;
    turn = normal;
    radius = r;
    gl_Position = Projection * Model * vec4(position + offset, 1.0);
}
"#
);

/// Casts the pixel's ray (from the eye, through the quad) at the sphere, both relative to its
/// centre so that the numbers stay small.
const FRAGMENT: &str = concat!(
    r#"#version 100
#ifdef GL_FRAGMENT_PRECISION_HIGH
precision highp float;
#else
precision mediump float;
#endif

uniform vec3 Towards;
uniform vec3 Shades;
"#,
    varyings!(),
    r#"
void main() {
    vec3 ray = offset - origin;
    float a = dot(ray, ray);
    float b = dot(origin, ray);
    float c = dot(origin, origin) - radius * radius;
    float disc = b * b - a * c;
    if (disc < 0.0 || radius <= 0.0) {
        discard;
    }
    float t = (-b - sqrt(disc)) / a;
    vec3 n = normalize(origin + t * ray);
    // The normal in the body's frame (the conjugate rotation): its darker quarter-segments.
    vec3 q = -turn.xyz;
    vec3 local = n + 2.0 * cross(q, cross(q, n) + turn.w * n);
    float tone = (local.y < 0.0 && local.x * local.z < 0.0) ? 0.8 : 1.0;
    float hemisphere = 0.5 + 0.5 * n.y;
    float ambient = Shades.y + (Shades.z - Shades.y) * hemisphere;
    float shade = (ambient + Shades.x * max(dot(n, Towards), 0.0)) * tone;
    gl_FragColor = vec4(clamp(colour.rgb * shade, 0.0, 1.0), 1.0);
}
"#
);

/// The impostors' shader, made once per window.
pub struct SphereMaterial {
    material: Material,
}

impl SphereMaterial {
    /// Compiles the shader; an error (a GL without GLSL ES 1.0) leaves the viewer on meshes.
    pub fn new() -> Result<SphereMaterial, String> {
        let uniforms = [
            ("Eye", UniformType::Float3),
            ("Up", UniformType::Float3),
            ("Towards", UniformType::Float3),
            ("Shades", UniformType::Float3),
        ]
        .map(|(name, kind)| UniformDesc::new(name, kind))
        .to_vec();
        let material = load_material(
            ShaderSource::Glsl {
                vertex: VERTEX,
                fragment: FRAGMENT,
            },
            MaterialParams {
                pipeline_params: PipelineParams {
                    depth_test: Comparison::LessOrEqual,
                    depth_write: true,
                    ..Default::default()
                },
                uniforms,
                textures: Vec::new(),
            },
        )
        .map_err(|e| e.to_string())?;
        Ok(SphereMaterial { material })
    }

    /// Draws `spheres` (made by [`add_sphere`]) seen from `eye` with the camera's `up`, lit by
    /// `light`, with the current camera.
    pub fn draw(&self, spheres: &Batch, eye: Vec3, up: Vec3, light: &Light) {
        if spheres.vertex_count() == 0 {
            return;
        }
        self.material.set_uniform("Eye", eye);
        self.material.set_uniform("Up", up);
        self.material.set_uniform("Towards", light.towards);
        self.material.set_uniform(
            "Shades",
            Vec3::new(light.key, light.ambient.0, light.ambient.1),
        );
        gl_use_material(&self.material);
        spheres.draw();
        gl_use_default_material();
    }
}

/// Adds the impostor of a sphere of `radius` centred at `centre`, turned by `rotation` (for its
/// darker quarters), in `colour` (unlit), to `batch`.
pub fn add_sphere(batch: &mut Batch, centre: Vec3, radius: f32, rotation: Quat, colour: Color) {
    let channel = |c: f32| (c.clamp(0.0, 1.0) * 255.0) as u8;
    let color = [channel(colour.r), channel(colour.g), channel(colour.b), 255];
    let turn = Vec4::new(rotation.x, rotation.y, rotation.z, rotation.w);
    let corner = |x: f32, y: f32| Vertex {
        position: centre,
        uv: Vec2::new(x, y) * radius,
        color,
        normal: turn,
    };
    batch.quad([
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
    ]);
}
