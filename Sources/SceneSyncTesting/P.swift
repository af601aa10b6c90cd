import SceneSync
