//! The mouse and keys of a frame: read from the window, or scripted (`--drag-at`/`--drag-to`).

use macroquad::prelude::*;

/// What a held mouse button is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Gesture {
    None,
    Orbit,
    Pan,
    Pull,
}

/// The mouse and keys this frame, real or scripted.
#[derive(Clone, Debug, Default)]
pub(crate) struct Input {
    pub(crate) cursor: Vec2,
    pub(crate) pressed: bool,
    pub(crate) down: bool,
    pub(crate) released: bool,
    /// Pan instead of orbit (right or middle button, or shift).
    pub(crate) pan: bool,
    pub(crate) wheel: f32,
    pub(crate) keys: Vec<KeyCode>,
    /// W, A, S and D (or the arrows) as held now (the character's stick, the car's pedals
    /// and steering).
    pub(crate) held: [bool; 4],
    /// Space as held now (the car's brake).
    pub(crate) space: bool,
    pub(crate) shift: bool,
}

impl Input {
    pub(crate) fn real() -> Input {
        let left = is_mouse_button_down(MouseButton::Left);
        let other =
            is_mouse_button_down(MouseButton::Right) || is_mouse_button_down(MouseButton::Middle);
        let shift = is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift);
        Input {
            cursor: mouse_position().into(),
            pressed: is_mouse_button_pressed(MouseButton::Left)
                || is_mouse_button_pressed(MouseButton::Right)
                || is_mouse_button_pressed(MouseButton::Middle),
            down: left || other,
            released: is_mouse_button_released(MouseButton::Left)
                || is_mouse_button_released(MouseButton::Right)
                || is_mouse_button_released(MouseButton::Middle),
            pan: other || shift,
            // Notches, whatever the platform's units (f32::signum would make 0 a notch).
            wheel: match mouse_wheel().1 {
                w if w > 0.0 => 1.0,
                w if w < 0.0 => -1.0,
                _ => 0.0,
            },
            keys: get_keys_pressed().into_iter().collect(),
            held: [
                (KeyCode::W, KeyCode::Up),
                (KeyCode::A, KeyCode::Left),
                (KeyCode::S, KeyCode::Down),
                (KeyCode::D, KeyCode::Right),
            ]
            .map(|(letter, arrow)| is_key_down(letter) || is_key_down(arrow)),
            space: is_key_down(KeyCode::Space),
            shift,
        }
    }
}

/// A scripted drag: press at frame `press`, move from `at` to `to` until frame `arrive`, hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Script {
    pub(crate) at: Vec2,
    pub(crate) to: Vec2,
    pub(crate) press: u64,
    pub(crate) arrive: u64,
}

impl Script {
    pub(crate) fn new(at: Vec2, to: Vec2, frames: u64) -> Script {
        let press = (frames / 6).clamp(1, 30);
        let arrive = (press + 1).max(frames * 3 / 4);
        Script {
            at,
            to,
            press,
            arrive,
        }
    }

    pub(crate) fn input(&self, frame: u64) -> Input {
        let t = if frame <= self.press {
            0.0
        } else {
            ((frame - self.press) as f32 / (self.arrive - self.press) as f32).min(1.0)
        };
        Input {
            cursor: self.at.lerp(self.to, t),
            pressed: frame == self.press,
            down: frame >= self.press,
            ..Input::default()
        }
    }
}
