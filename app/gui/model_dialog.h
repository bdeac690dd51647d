// ModelDialog: the model of a run or a what-if, and its batch size, asked together — a built-in
// model or an ONNX file, with the last choice offered again.
#pragma once

#include <QDialog>
#include <QString>

class QComboBox;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace ts {

class ModelDialog : public QDialog {
  Q_OBJECT
 public:
  // `batchLabel` empty: no batch is asked.
  ModelDialog(const QString& title, const QString& batchLabel, QWidget* parent = nullptr);

  // A built-in model's name (empty when a file is chosen), the file otherwise.
  QString builtIn() const;
  QString file() const;
  int batch() const;

  void accept() override;  // keeps the choice for the next time
  // Keeps a model used without the dialog (`--simulate resnet50`), so the next one offers it: the
  // ONNX file's path, a built-in's cache file counting as the built-in.
  static void remember(const QString& modelPath, int batch);

 private:
  void update();
  QComboBox* source_ = nullptr;
  QLineEdit* file_ = nullptr;
  QPushButton* browse_ = nullptr;
  QSpinBox* batch_ = nullptr;
  QPushButton* ok_ = nullptr;
};

}  // namespace ts
