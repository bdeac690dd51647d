// G10InputsDialog: which model and batch of a folder of G10's own inputs to simulate — the models
// found under it and, for the chosen one, the batch sizes G10 traced.
#pragma once

#include <QDialog>
#include <vector>

#include "memsim/formats/g10_inputs.h"

class QComboBox;

namespace ts {

class G10InputsDialog : public QDialog {
  Q_OBJECT
 public:
  G10InputsDialog(const QString& root, std::vector<memsim::G10InputsModel> models,
                  QWidget* parent = nullptr);

  QString model() const;  // G10's experiment name: "BERT", "ResNet152", ...
  int64_t batch() const;

 private:
  void fillBatches();
  std::vector<memsim::G10InputsModel> models_;
  QComboBox* model_ = nullptr;
  QComboBox* batch_ = nullptr;
};

}  // namespace ts
